// A durable run (RunOptions.runDir: journal, state.md, binding files) against the same run kept in
// memory, against a zero-latency fake Messages API, 200 sequential sessions in two shapes:
//   distinct: each session bound to a name of its own: 200 binding files, the worst case;
//   loop:     one name rebound by every session (a loop's `draft = session ...`): one binding file.
// Target from the issue: durable at most 1.2x the in-memory time (median of per-round ratios; the fake
// server runs in its own process).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fakeServerProcess, median, pairedRounds, spread } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const SESSIONS = 200;
const ROUNDS = 9;
const { startRun, defineProgram } = await import(pathToFileURL(join(root, "dist/runtime/index.js")).href);

const server = await fakeServerProcess(0, "A short answer of a few words.");
const scratch = mkdtempSync(join(tmpdir(), "prosec-durable-bench-"));

const shapes = {
  distinct: {
    text: Array.from({ length: SESSIONS }, (_, i) => `let step${i} = session "Step ${i}"`).join("\n"),
    name: (i) => `step${i}`,
    line: (i) => i + 1,
  },
  loop: { text: 'repeat 200 as i:\n  draft = session "Step {i}"', name: () => "draft", line: () => 2 },
};

function bodyOf(shape) {
  return async (rt) => {
    for (let i = 0; i < SESSIONS; i++) {
      const line = shape.line(i);
      rt.bind(
        { line, column: 5 },
        shape.name(i),
        await rt.session({ at: { line, column: 13 }, prompt: `Step ${i}`, binding: shape.name(i) }),
      );
    }
  };
}

let runs = 0;
async function timed(shape, durable) {
  const program = defineProgram({
    name: "durable-bench",
    source: "durable-bench.prose",
    sourceHash: "0".repeat(64),
    compilerVersion: "0.0.0",
    inputs: [],
    outputs: [],
    text: shape.text,
  });
  const options = {
    apiKey: "sk-ant-bench-0000000000",
    baseURL: server.url,
    maxRetries: 0,
    cwd: scratch,
    ...(durable ? { runDir: join(scratch, `run-${++runs}`) } : {}),
  };
  const start = performance.now();
  await startRun(program, {}, options, bodyOf(shape));
  return performance.now() - start;
}

console.log(
  `| ${SESSIONS} sequential sessions, zero latency (${ROUNDS} rounds) | in memory (median) | durable (median) | durable / in memory per round (min / median / max) | target |`,
);
console.log(`| --- | --- | --- | --- | --- |`);
let met = true;
for (const [label, shape] of Object.entries(shapes)) {
  await timed(shape, false);
  await timed(shape, true);
  const rounds = await pairedRounds(
    ROUNDS,
    () => timed(shape, true),
    () => timed(shape, false),
  );
  const ratio = median(rounds.ratios);
  met &&= ratio <= 1.2;
  console.log(
    `| ${label} | ${median(rounds.b).toFixed(1)} ms | ${median(rounds.a).toFixed(1)} ms | ${spread(rounds.ratios)} | <= 1.2 ${ratio <= 1.2 ? "(met)" : "(NOT met)"} |`,
  );
}
server.close();
rmSync(scratch, { recursive: true, force: true });
if (!met) process.exitCode = 1;
