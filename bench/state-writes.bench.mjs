// What a durable run writes to disk against what its folder holds at the end: the corpus program
// 28-gas-town (two 1,000-iteration patrols, about 20,000 requests) run by `prosec run` against the
// scripted corpus model, answering at once from a server in its own process. The bytes the prosec
// process writes to files are counted by a preloaded module (bench/support/count-writes.mjs).
// Targets from issue 30: bytes written < 3x the final folder, and the folder < 15 MB.
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { transpileFakeServer } from "./support/fake-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const PROGRAM = "28-gas-town.prose";
const source = join(root, "examples/openprose", PROGRAM);

transpileFakeServer();
const server = spawn(process.execPath, [join(root, "bench/support/serve-corpus.mjs"), source], {
  stdio: ["pipe", "pipe", "inherit"],
});
const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
const url = (await lines.next()).value;

const project = mkdtempSync(join(tmpdir(), "prosec-state-writes-"));
copyFileSync(source, join(project, PROGRAM));
const counted = join(project, "written.txt");
const started = performance.now();
const child = spawn(
  process.execPath,
  ["--import", join(root, "bench/support/count-writes.mjs"), join(root, "bin/prosec"), "run", PROGRAM, "--yes"],
  {
    cwd: project,
    env: {
      ...process.env,
      ANTHROPIC_API_KEY: "sk-ant-bench-0000000000",
      ANTHROPIC_BASE_URL: url,
      PROSEC_BENCH_WRITES: counted,
    },
    stdio: ["ignore", "ignore", "pipe"],
  },
);
let stderr = "";
child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
const code = await new Promise((resolve) => child.on("close", resolve));
const seconds = (performance.now() - started) / 1000;
server.stdin.write("count\n");
const requests = Number((await lines.next()).value);
server.stdin.end();
server.kill();

function folderBytes(path) {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    total += entry.isDirectory() ? folderBytes(full) : statSync(full).size;
  }
  return total;
}
const runs = join(project, ".prose", "runs");
const runDir = join(runs, readdirSync(runs)[0]);
const folder = folderBytes(runDir);
const byKind = JSON.parse(readFileSync(counted, "utf8"));
const written = Object.values(byKind).reduce((sum, bytes) => sum + bytes, 0);
const state = statSync(join(runDir, "state.md")).size;
const journal = statSync(join(runDir, "journal.jsonl")).size;
const bindings = readdirSync(join(runDir, "bindings")).length;
rmSync(project, { recursive: true, force: true });

const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
const ratio = written / folder;
console.log(
  `| ${PROGRAM} via prosec run (exit ${code}, ${requests} requests, ${seconds.toFixed(0)} s) | measured | target |`,
);
console.log("| --- | --- | --- |");
console.log(
  `| bytes written to files | ${mb(written)} (${Object.entries(byKind)
    .map(([name, bytes]) => `${name} ${mb(bytes)}`)
    .join(", ")}) | |`,
);
console.log(
  `| final run folder | ${mb(folder)} (journal ${mb(journal)}, state.md ${mb(state)}, ${bindings} binding files) | < 15 MB |`,
);
console.log(`| written / folder | ${ratio.toFixed(2)}x | < 3x |`);
if (code !== 0 && code !== 1) console.log(stderr);
process.exitCode = ratio < 3 && folder < 15e6 ? 0 : 1;
