// A durable run (RunOptions.runDir: journal, state.md, binding files) against the same run kept in
// memory: 200 sequential sessions, each bound to a name of its own (200 binding files), against a
// zero-latency fake Messages API. Target from the issue: durable at most 1.2x the in-memory time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadFakeServer } from "./support/fake-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const SESSIONS = 200;
const ROUNDS = 9;
const { startFakeAnthropic, reply } = await loadFakeServer();
const { startRun, defineProgram } = await import(pathToFileURL(join(root, "dist/runtime/index.js")).href);

const text = Array.from({ length: SESSIONS }, (_, i) => `let step${i} = session "Step ${i}"`).join("\n");
const program = defineProgram({ name: "durable-bench", source: "durable-bench.prose", sourceHash: "0".repeat(64), compilerVersion: "0.0.0", inputs: [], outputs: [], text });
const server = await startFakeAnthropic({ respond: () => reply.text("A short answer of a few words."), keepBodies: false });
const scratch = mkdtempSync(join(tmpdir(), "prosec-durable-bench-"));

async function body(rt) {
  for (let i = 0; i < SESSIONS; i++) {
    const at = { line: i + 1, column: 13 + String(i).length };
    rt.bind({ line: i + 1, column: 5 }, `step${i}`, await rt.session({ at, prompt: `Step ${i}`, binding: `step${i}` }));
  }
}

let runs = 0;
async function timed(durable) {
  const options = { apiKey: "sk-ant-bench-0000000000", baseURL: server.url, maxRetries: 0, cwd: scratch, ...(durable ? { runDir: join(scratch, `run-${++runs}`) } : {}) };
  const start = performance.now();
  await startRun(program, {}, options, body);
  return performance.now() - start;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
await timed(false);
await timed(true);
const memory = [];
const durable = [];
for (let round = 0; round < ROUNDS; round++) {
  memory.push(await timed(false));
  durable.push(await timed(true));
}
await server.close();
rmSync(scratch, { recursive: true, force: true });

const ratio = median(durable) / median(memory);
console.log(`| benchmark | in memory | durable | ratio | target |`);
console.log(`| --- | --- | --- | --- | --- |`);
console.log(`| ${SESSIONS} sequential sessions, zero latency (median of ${ROUNDS}) | ${median(memory).toFixed(1)} ms | ${median(durable).toFixed(1)} ms | ${ratio.toFixed(3)} | <= 1.2 ${ratio <= 1.2 ? "(met)" : "(NOT met)"} |`);
if (ratio > 1.2) process.exitCode = 1;
