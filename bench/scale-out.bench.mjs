// Runs per second of one program through the file backend (`.prose/runs/`, in process), through DBOS
// (one `prosec worker` process with its default settings, runs submitted with the DBOS client), and
// the same workflows started directly (DBOS.startWorkflow, no queue: bench/support/dbos-direct.mjs),
// against a zero-latency fake Messages API in its own process; the mean wait in the queue; DBOS's
// overhead per step. 7 sessions per run, 2 of them in `parallel:` branches (2 child workflows).
// Targets: worker / direct runs/s at least 0.8 (median of per-round ratios), mean queue wait <= 100 ms.
// Needs PostgreSQL: PROSEC_TEST_DATABASE_URL, or a throwaway one from .ci/postgres.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { benchPostgres, freshDatabase as databaseFor } from "./support/postgres.mjs";
import { fakeServerProcess, median, spread } from "./support/rounds.mjs";

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

const { loadProgram } = await import(pathToFileURL(join(root, "dist/src/run/load-program.js")).href);
const { DBOSClient } = await import("@dbos-inc/dbos-sdk");
const pMap = (await import("p-map")).default;

const scratch = mkdtempSync(join(tmpdir(), "prosec-scale-bench-"));
chmodSync(scratch, 0o755);
writeFileSync(join(scratch, "report.prose"), PROGRAM);
const server = await fakeServerProcess(0, "A short answer.");
const env = { ...process.env, ANTHROPIC_API_KEY: "sk-ant-bench-0000000000", ANTHROPIC_BASE_URL: server.url };
const { module, codeHash } = await loadProgram("report.prose", { cwd: scratch });

const postgres = await benchPostgres(scratch);
const freshDatabase = (round) => databaseFor(postgres.url, `prosec_bench_${process.pid}_${round}`);

async function expectRequests(backend, before, runs = RUNS) {
  const sent = (await server.requestCount()) - before;
  if (sent !== runs * STEPS) throw new Error(`${backend}: ${sent} requests`);
}

async function fileRound(round) {
  const before = await server.requestCount();
  const start = performance.now();
  await pMap(
    Array.from({ length: RUNS }, (_, i) => i),
    async (i) => {
      const runId = `r${round}-${i}`;
      const began = performance.now();
      await module.run(
        { topic: `t${i}` },
        {
          runId,
          runDir: join(scratch, "runs", runId),
          cwd: scratch,
          apiKey: env.ANTHROPIC_API_KEY,
          baseURL: server.url,
        },
      );
      perRun.file.push(performance.now() - began);
    },
    { concurrency: CONCURRENCY },
  );
  const ms = performance.now() - start;
  await expectRequests("file", before);
  return ms;
}

async function dbosRound(round) {
  const database = await freshDatabase(round);
  const worker = spawn(
    process.execPath,
    [join(root, "bin/prosec"), "worker", "report.prose", "--id", "bench", "--adopt-after", "600"],
    { cwd: scratch, env: { ...env, DBOS_SYSTEM_DATABASE_URL: database } },
  );
  let log = "";
  await new Promise((resolve, reject) => {
    worker.stderr.on("data", (chunk) => {
      log += chunk;
      if (log.includes("worker bench:")) resolve();
    });
    worker.on("exit", (code) => reject(new Error(`worker exited ${code}: ${log}`)));
  });
  const client = await DBOSClient.create({ systemDatabaseUrl: database, applicationName: "prosec" });
  // One run first, not timed, as dbos-direct.mjs does: the worker's first dequeue and run pay for warming up.
  await client.enqueue(
    { queueName: "prosec", workflowName: "prosec.run", workflowID: "warm-up", appVersion: codeHash },
    { topic: "warm-up" },
  );
  await client.retrieveWorkflow("warm-up").getResult({ pollingIntervalMs: 20 });
  const before = await server.requestCount();
  const start = performance.now();
  for (let i = 0; i < RUNS; i++)
    await client.enqueue(
      { queueName: "prosec", workflowName: "prosec.run", workflowID: `run-${i}`, appVersion: codeHash },
      { topic: `t${i}` },
    );
  // One result at a time: 24 clients polling PostgreSQL every 20 ms at once slowed the worker they measure.
  const outputs = [];
  for (let i = 0; i < RUNS; i++)
    outputs.push(await client.retrieveWorkflow(`run-${i}`).getResult({ pollingIntervalMs: 20 }));
  const ms = performance.now() - start;
  if (!outputs.every((output) => typeof output?.report === "string" && output.report.length > 0))
    throw new Error("dbos: a run without its report");
  await expectRequests("dbos", before);
  // A run's own time, from its dequeue to its end, and its wait in the queue before that.
  for (const status of await client.listWorkflows({ workflowName: "prosec.run" })) {
    if (status.workflowID === "warm-up") continue;
    perRun.dbos.push(status.completedAt - status.dequeuedAt);
    queueWaits.push(status.dequeuedAt - status.createdAt);
  }
  await client.destroy();
  worker.removeAllListeners("exit");
  worker.kill("SIGKILL");
  return ms;
}

async function directRound(round) {
  const database = await freshDatabase(`direct_${round}`);
  const before = await server.requestCount();
  // DBOS prints its migrations on stdout; the time is the last line.
  const output = execFileSync(
    process.execPath,
    [join(root, "bench/support/dbos-direct.mjs"), "report.prose", database, String(RUNS)],
    { cwd: scratch, env, encoding: "utf8" },
  );
  const ms = Number(output.trim().split("\n").at(-1));
  await expectRequests("direct", before, RUNS + 1);
  return ms;
}

const times = { file: [], dbos: [], direct: [] };
const perRun = { file: [], dbos: [] };
const queueWaits = [];
for (let round = 0; round < ROUNDS; round++) {
  times.file.push(await fileRound(round));
  times.dbos.push(await dbosRound(round));
  times.direct.push(await directRound(round));
}
const labels = {
  file: "file",
  dbos: "DBOS, `prosec worker` (default settings)",
  direct: "DBOS, started directly (no queue)",
};
console.log(`| backend | runs | wall ms (median of ${ROUNDS}) | runs/s |`);
console.log("| --- | --- | --- | --- |");
for (const backend of ["file", "dbos", "direct"]) {
  const ms = median(times[backend]);
  console.log(`| ${labels[backend]} | ${RUNS} | ${ms.toFixed(0)} | ${((RUNS * 1000) / ms).toFixed(1)} |`);
}
// runs/s worker / runs/s direct = direct time / worker time, round by round.
const ratios = times.dbos.map((ms, round) => times.direct[round] / ms);
const meanWait = queueWaits.reduce((sum, wait) => sum + wait, 0) / queueWaits.length;
const perStep = (median(perRun.dbos) - median(perRun.file)) / STEPS;
console.log(
  `\nworker / direct runs/s per round (min / median / max): ${spread(ratios, 2)} (target >= 0.8: ${median(ratios) >= 0.8 ? "met" : "NOT met"})`,
);
console.log(
  `mean wait in the queue: ${meanWait.toFixed(0)} ms over ${queueWaits.length} runs (target <= 100 ms: ${meanWait <= 100 ? "met" : "NOT met"})`,
);
console.log(
  `DBOS overhead per step: ${perStep.toFixed(1)} ms (a run's own time, dequeue to end, minus the file backend's, over its ${STEPS} steps; 2 branch workflows per run)`,
);
server.close();
postgres.stop();
rmSync(scratch, { recursive: true, force: true });
if (median(ratios) < 0.8 || meanWait > 100) process.exitCode = 1;
