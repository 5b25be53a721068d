// What a durable run writes to disk against what its folder holds at the end, with a model at a real
// pace: a program of 100 sessions run by `prosec run` against the fake server in its own process,
// answering at once and after 2 s a request. The bytes the prosec process writes to files are counted
// by a preloaded module (bench/support/count-writes.mjs). Target from issue 41: written / folder <= 2
// at 2 s a request (state.md was rewritten once per step: 18.35x before).
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakeServerProcess, printTable } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const STEPS = 100;
const PROGRAM = [
  "# A long-running program: one session per step, each answered by a model at its own pace.",
  'input topic: "What to study"',
  "",
  ...Array.from(
    { length: STEPS },
    (_, step) => `let note_${step} = session "Step ${step}: study one more aspect of {topic}"`,
  ),
  "",
].join("\n");

function folderBytes(path) {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    total += entry.isDirectory() ? folderBytes(full) : statSync(full).size;
  }
  return total;
}

async function measure(latencyMs) {
  const server = await fakeServerProcess(latencyMs, "A short answer of a sentence or two, as a step's note.");
  const project = mkdtempSync(join(tmpdir(), "prosec-state-pace-"));
  writeFileSync(join(project, "study.prose"), PROGRAM);
  const counted = join(project, "written.json");
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      "--import",
      join(root, "bench/support/count-writes.mjs"),
      join(root, "bin/prosec"),
      "run",
      "study.prose",
      "--yes",
      "-i",
      "topic=tides",
    ],
    {
      cwd: project,
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: "sk-ant-bench-0000000000",
        ANTHROPIC_BASE_URL: server.url,
        PROSEC_BENCH_WRITES: counted,
      },
      stdio: ["ignore", "ignore", "ignore"],
    },
  );
  const code = await new Promise((resolve) => child.on("close", resolve));
  const seconds = (performance.now() - started) / 1000;
  const requests = await server.requestCount();
  server.close();
  const runs = join(project, ".prose", "runs");
  const runDir = join(runs, readdirSync(runs)[0]);
  const folder = folderBytes(runDir);
  const byKind = JSON.parse(readFileSync(counted, "utf8"));
  const written = Object.values(byKind).reduce((sum, bytes) => sum + bytes, 0);
  const state = statSync(join(runDir, "state.md")).size;
  rmSync(project, { recursive: true, force: true });
  return { latencyMs, code, seconds, requests, folder, written, stateWritten: byKind["state.md"], state };
}

const kb = (bytes) => `${(bytes / 1e3).toFixed(1)} KB`;
const results = [];
for (const latency of [0, 2000]) results.push(await measure(latency));
printTable([
  [
    "per request",
    "exit, requests, wall",
    "bytes written",
    "state.md written (its size)",
    "final folder",
    "written / folder",
  ],
  ...results.map((result) => [
    `${result.latencyMs} ms`,
    `${result.code}, ${result.requests}, ${result.seconds.toFixed(0)} s`,
    kb(result.written),
    `${kb(result.stateWritten)} (${kb(result.state)})`,
    kb(result.folder),
    `${(result.written / result.folder).toFixed(2)}x`,
  ]),
]);
const slow = results.at(-1);
process.exitCode = slow.written / slow.folder <= 2 ? 0 : 1;
