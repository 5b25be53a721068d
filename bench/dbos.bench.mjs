// Runs per second of one program through the file backend (`.prose/runs/`, `module.run` in this
// process) and through DBOS (one `prosec worker` process; runs enqueued here with the DBOS client),
// against a zero-latency fake Messages API, and DBOS's overhead per step:
//   (DBOS wall ms per run - file wall ms per run) / 7 steps, wall ms per run = wall ms / runs.
// The program has 7 sessions per run, 2 of them in `parallel:` branches (2 DBOS child workflows).
// File: wall time of N runs, C at once. DBOS: from the first enqueue until all N runs are SUCCESS
// (the worker's start-up and the database's creation are not timed). Rounds interleave file and
// DBOS after one untimed file warm-up; the table prints medians. Checks: every DBOS run's `report`
// is a non-empty string, and the fake server got exactly 7 * N requests per backend per round.
// Needs PostgreSQL: PROSEC_TEST_DATABASE_URL, else a throwaway server from .ci/postgres (stopped at
// the end). Each DBOS round gets a fresh database, dropped afterwards.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadFakeServer } from "./support/fake-server.mjs";

process.noDeprecation = true;
const root = fileURLToPath(new URL("..", import.meta.url));
const RUNS = 40;
const CONCURRENCY = 4;
const ROUNDS = 3;
const STEPS = 7;
const BRANCHES = 2;
const API_KEY = "sk-ant-bench-0000000000";
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
const { newRunId } = await import(pathToFileURL(join(root, "dist/runtime/index.js")).href);
const { DBOSClient } = await import("@dbos-inc/dbos-sdk");
const pg = (await import("pg")).default;

const scratch = mkdtempSync(join(tmpdir(), "prosec-dbos-bench-"));
chmodSync(scratch, 0o755); // .ci/postgres runs the server as `postgres`, under this folder
writeFileSync(join(scratch, "report.prose"), PROGRAM);
const server = await startFakeAnthropic({ respond: () => reply.text("A short answer."), keepBodies: false });
const loaded = await loadProgram("report.prose", { cwd: scratch });
if (loaded.module === undefined || loaded.codeHash === undefined) throw new Error("report.prose does not compile");
const { module, codeHash } = loaded;

let serverUrl = process.env.PROSEC_TEST_DATABASE_URL;
let stopPostgres = () => {};
if (!serverUrl) {
  const port = await new Promise((resolve, reject) => {
    const probe = createServer().once("error", reject).listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  const data = join(scratch, "pg");
  const postgres = [join(root, ".ci/postgres")];
  const pgEnv = { ...process.env, PROSEC_PG_PORT: String(port) };
  serverUrl = execFileSync("bash", [...postgres, "start", data], { encoding: "utf8", env: pgEnv }).trim();
  stopPostgres = () => execFileSync("bash", [...postgres, "stop", data], { env: pgEnv, stdio: "inherit" });
}

function databaseUrl(name) {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin(sql) {
  const client = new pg.Client({ connectionString: databaseUrl("postgres") });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Runs `body(i)` for i in 0..count-1, at most `limit` at once. */
async function pool(count, limit, body) {
  let next = 0;
  const lane = async () => {
    while (next < count) await body(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}

function checkRequests(backend, before) {
  const got = server.requests.length - before;
  if (got !== RUNS * STEPS) throw new Error(`${backend}: the fake server got ${got} requests, expected ${RUNS * STEPS}`);
}

const ids = new Set();
function uniqueRunId() {
  for (;;) {
    const id = newRunId(new Date());
    if (!ids.has(id)) {
      ids.add(id);
      return id;
    }
  }
}

async function fileRound() {
  const before = server.requests.length;
  const start = performance.now();
  await pool(RUNS, CONCURRENCY, async (i) => {
    const id = uniqueRunId();
    await module.run({ topic: `t${i}` }, { runDir: join(scratch, "runs", id), runId: id, cwd: scratch, apiKey: API_KEY, baseURL: server.url });
  });
  const ms = performance.now() - start;
  checkRequests("file", before);
  return ms;
}

/** Starts `prosec worker` on `url`; resolves once it printed its `worker bench:` line. */
async function startWorker(url) {
  const env = { ...process.env, DBOS_SYSTEM_DATABASE_URL: url, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: server.url };
  const args = [join(root, "bin/prosec"), "worker", "report.prose", "--id", "bench", "--concurrency", String(CONCURRENCY), "--adopt-after", "600"];
  const worker = spawn(process.execPath, args, { cwd: scratch, env, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker not ready after 60 s:\n${log}`)), 60_000);
    worker.stderr.setEncoding("utf8");
    worker.stderr.on("data", (chunk) => {
      log += chunk;
      const ready = log.split("\n").find((line) => line.startsWith("worker bench:"));
      if (ready === undefined) return;
      clearTimeout(timer);
      if (!ready.includes(`(version ${codeHash})`)) reject(new Error(`the worker's version is not ${codeHash}: ${ready}`));
      else resolve();
    });
    worker.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code ?? signal}) before it was ready:\n${log}`));
    });
  });
  return { worker, log: () => log };
}

async function stopWorker(worker) {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  worker.kill("SIGTERM");
  const timer = setTimeout(() => worker.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

async function dbosRound(round) {
  const name = `prosec_dbos_bench_${process.pid}_${round}`;
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  const url = databaseUrl(name);
  let worker;
  let client;
  try {
    const started = await startWorker(url);
    worker = started.worker;
    client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: "prosec" });
    const runIds = Array.from({ length: RUNS }, (_, i) => `run-${i}`);
    const before = server.requests.length;
    const start = performance.now();
    for (const [i, workflowID] of runIds.entries()) {
      await client.enqueue({ queueName: "prosec", workflowName: "prosec.run", workflowID, appVersion: codeHash }, { topic: `t${i}` });
    }
    let statuses;
    for (;;) {
      statuses = await client.listWorkflows({ workflowName: "prosec.run", loadInput: false, loadOutput: false });
      const failed = statuses.find((status) => status.status !== "SUCCESS" && status.status !== "PENDING" && status.status !== "ENQUEUED");
      if (failed !== undefined) throw new Error(`dbos: run ${failed.workflowID} is ${failed.status}\n${started.log()}`);
      if (statuses.length === RUNS && statuses.every((status) => status.status === "SUCCESS")) break;
      if (performance.now() - start > 120_000) throw new Error(`dbos: not finished after 120 s\n${started.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const ms = performance.now() - start;
    const outputs = await Promise.all(runIds.map((id) => client.retrieveWorkflow(id).getResult()));
    const empty = outputs.findIndex((output) => typeof output?.report !== "string" || output.report.length === 0);
    if (empty !== -1) throw new Error(`dbos: run ${runIds[empty]} has no report: ${JSON.stringify(outputs[empty])}`);
    checkRequests("dbos", before);
    // A run's own time, dequeue to end (without its wait in the queue): printed for reference.
    for (const status of statuses) latency.push(status.completedAt - status.dequeuedAt);
    return ms;
  } finally {
    if (client !== undefined) await client.destroy();
    if (worker !== undefined) await stopWorker(worker);
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

const times = { file: [], dbos: [] };
const latency = [];
try {
  await fileRound(); // warm-up (compiled code, the fake server's sockets): not counted
  for (let round = 0; round < ROUNDS; round++) {
    times.file.push(await fileRound());
    times.dbos.push(await dbosRound(round));
  }
} finally {
  await server.close();
  stopPostgres();
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const perRun = {};
console.log(`| backend | runs | concurrency | wall ms (median of ${ROUNDS}) | runs/s | ms per run (wall / runs) |`);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const backend of ["file", "dbos"]) {
  const ms = median(times[backend]);
  perRun[backend] = ms / RUNS;
  console.log(`| ${backend} | ${RUNS} | ${CONCURRENCY} | ${ms.toFixed(0)} | ${((RUNS * 1000) / ms).toFixed(1)} | ${perRun[backend].toFixed(1)} |`);
}
const overhead = (perRun.dbos - perRun.file) / STEPS;
console.log(`\nDBOS per-step overhead: ${overhead.toFixed(1)} ms per step (${STEPS} steps per run, + ${BRANCHES} branch workflows)`);
console.log(`All rounds (ms): file ${times.file.map((t) => t.toFixed(0)).join(", ")}; dbos ${times.dbos.map((t) => t.toFixed(0)).join(", ")}. One DBOS run, dequeue to end: median ${median(latency).toFixed(0)} ms.`);
rmSync(scratch, { recursive: true, force: true });
