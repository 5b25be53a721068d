// Runs per second of one program through the file backend (`.prose/runs/`, in process) and through
// DBOS (one `prosec worker` process, runs submitted with the DBOS client), against a zero-latency fake
// Messages API, and DBOS's overhead per step. 7 sessions per run, 2 of them in `parallel:` branches
// (2 child workflows). Needs PostgreSQL: PROSEC_TEST_DATABASE_URL, or a throwaway one from .ci/postgres.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadFakeServer } from "./support/fake-server.mjs";

process.noDeprecation = true;
const root = fileURLToPath(new URL("..", import.meta.url));
const RUNS = 24;
const CONCURRENCY = 4;
const ROUNDS = 3;
const STEPS = 7;
const PROGRAM = `input topic: "What to write about"

parallel:
  history = session "Research {topic}: history"
  markets = session "Research {topic}: markets"

let draft = session "Outline a report on {topic}"
  context: { history, markets }

repeat 3 as round:
  draft = session "Revise the draft on {topic}, round {round}"
    context: draft

output report = session "Assemble the report on {topic}"
  context: draft
`;

const { startFakeAnthropic, reply } = await loadFakeServer();
const { loadProgram } = await import(pathToFileURL(join(root, "dist/src/run/load-program.js")).href);
const { DBOSClient } = await import("@dbos-inc/dbos-sdk");
const pg = (await import("pg")).default;
const pMap = (await import("p-map")).default;

const scratch = mkdtempSync(join(tmpdir(), "prosec-scale-bench-"));
chmodSync(scratch, 0o755);
writeFileSync(join(scratch, "report.prose"), PROGRAM);
const server = await startFakeAnthropic({ respond: () => reply.text("A short answer."), keepBodies: false });
const env = { ...process.env, ANTHROPIC_API_KEY: "sk-ant-bench-0000000000", ANTHROPIC_BASE_URL: server.url };
const { module, codeHash } = await loadProgram("report.prose", { cwd: scratch });

let serverUrl = process.env.PROSEC_TEST_DATABASE_URL;
let stopServer = () => {};
if (!serverUrl) {
  const port = await new Promise((resolve) => { const s = createServer().listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); }); });
  const data = join(scratch, "pg");
  serverUrl = execFileSync("bash", [join(root, ".ci/postgres"), "start", data], { encoding: "utf8", env: { ...process.env, PROSEC_PG_PORT: String(port) } }).trim();
  stopServer = () => execFileSync("bash", [join(root, ".ci/postgres"), "stop", data]);
}

async function freshDatabase(round) {
  const name = `prosec_bench_${process.pid}_${round}`;
  const admin = new URL(serverUrl);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function fileRound(round) {
  const before = server.requests.length;
  const start = performance.now();
  await pMap(Array.from({ length: RUNS }, (_, i) => i), async (i) => {
    const runId = `r${round}-${i}`;
    const began = performance.now();
    await module.run({ topic: `t${i}` }, { runId, runDir: join(scratch, "runs", runId), cwd: scratch, apiKey: env.ANTHROPIC_API_KEY, baseURL: server.url });
    perRun.file.push(performance.now() - began);
  }, { concurrency: CONCURRENCY });
  const ms = performance.now() - start;
  if (server.requests.length - before !== RUNS * STEPS) throw new Error(`file: ${server.requests.length - before} requests`);
  return ms;
}

async function dbosRound(round) {
  const database = await freshDatabase(round);
  const worker = spawn(process.execPath, [join(root, "bin/prosec"), "worker", "report.prose", "--id", "bench", "--concurrency", String(CONCURRENCY), "--adopt-after", "600"], { cwd: scratch, env: { ...env, DBOS_SYSTEM_DATABASE_URL: database } });
  let log = "";
  await new Promise((resolve, reject) => {
    worker.stderr.on("data", (chunk) => { log += chunk; if (log.includes("worker bench:")) resolve(); });
    worker.on("exit", (code) => reject(new Error(`worker exited ${code}: ${log}`)));
  });
  const client = await DBOSClient.create({ systemDatabaseUrl: database, applicationName: "prosec" });
  const before = server.requests.length;
  const start = performance.now();
  for (let i = 0; i < RUNS; i++) await client.enqueue({ queueName: "prosec", workflowName: "prosec.run", workflowID: `run-${i}`, appVersion: codeHash }, { topic: `t${i}` });
  const outputs = await Promise.all(Array.from({ length: RUNS }, (_, i) => client.retrieveWorkflow(`run-${i}`).getResult({ pollingIntervalMs: 20 })));
  const ms = performance.now() - start;
  if (!outputs.every((output) => typeof output?.report === "string" && output.report.length > 0)) throw new Error("dbos: a run without its report");
  if (server.requests.length - before !== RUNS * STEPS) throw new Error(`dbos: ${server.requests.length - before} requests`);
  // A run's own time, from its dequeue to its end: without the wait in the queue.
  for (const status of await client.listWorkflows({ workflowName: "prosec.run" })) perRun.dbos.push(status.completedAt - status.dequeuedAt);
  await client.destroy();
  worker.removeAllListeners("exit");
  worker.kill("SIGKILL");
  return ms;
}

const times = { file: [], dbos: [] };
const perRun = { file: [], dbos: [] };
for (let round = 0; round < ROUNDS; round++) {
  times.file.push(await fileRound(round));
  times.dbos.push(await dbosRound(round));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`| backend | runs | at once | wall ms (median of ${ROUNDS}) | runs/s | one run, start to end (median ms) |`);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const backend of ["file", "dbos"]) {
  const ms = median(times[backend]);
  console.log(`| ${backend} | ${RUNS} | ${CONCURRENCY} | ${ms.toFixed(0)} | ${((RUNS * 1000) / ms).toFixed(1)} | ${median(perRun[backend]).toFixed(0)} |`);
}
const perStep = (median(perRun.dbos) - median(perRun.file)) / STEPS;
console.log(`\nDBOS overhead per step: ${perStep.toFixed(1)} ms (a run's own time, dequeue to end, minus the file backend's, over its ${STEPS} steps; 2 branch workflows per run). All rounds: file ${times.file.map((t) => t.toFixed(0)).join(", ")} ms, dbos ${times.dbos.map((t) => t.toFixed(0)).join(", ")} ms`);
await server.close();
stopServer();
rmSync(scratch, { recursive: true, force: true });
