// Submitting many runs against what the workers can do with them, side by side in each round:
//   - `prosec submit FILE --inputs runs.jsonl` of 200 runs (one process, the program compiled once),
//   - `prosec submit FILE -i ...` once a run, 4 processes at a time (how many runs were submitted before),
//   - 2 `prosec worker` processes (default settings) draining those runs: runs/s from the first dequeue
//     to the last run's end, read from DBOS's own timestamps.
// A run is one session against a zero-latency fake Messages API in its own process, so the workers'
// figure is their own capacity. Everything goes through the CLI, as users run it.
// Needs PostgreSQL: PROSEC_TEST_DATABASE_URL, or a throwaway one from .ci/postgres.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchPostgres, freshDatabase as databaseFor } from "./support/postgres.mjs";
import { fakeServerProcess, median, spread } from "./support/rounds.mjs";

process.noDeprecation = true;
const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "bin/prosec");
const MANY = 200;
const ONE_BY_ONE = 8;
const STREAMS = 4;
const WORKERS = 2;
const ROUNDS = 3;
const PROGRAM = `input topic: "What to write about"

output summary = session "Summarize {topic} in one line"
`;

const pg = (await import("pg")).default;
const pMap = (await import("p-map")).default;

const scratch = mkdtempSync(join(tmpdir(), "prosec-submit-bench-"));
chmodSync(scratch, 0o755);
writeFileSync(join(scratch, "summary.prose"), PROGRAM);
const server = await fakeServerProcess(0, "A short answer.");
const env = {
  ...process.env,
  ANTHROPIC_API_KEY: "sk-ant-bench-0000000000",
  ANTHROPIC_BASE_URL: server.url,
  NO_COLOR: "1",
};

const postgres = await benchPostgres(scratch);
const freshDatabase = (round) => databaseFor(postgres.url, `prosec_submit_bench_${process.pid}_${round}`);

function prosec(args, database) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: scratch,
      env: { ...env, DBOS_SYSTEM_DATABASE_URL: database },
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`prosec ${args[0]}: ${code} ${stderr}`))));
  });
}

function startWorker(id, database) {
  const worker = spawn(process.execPath, [bin, "worker", "summary.prose", "--id", id, "--adopt-after", "600"], {
    cwd: scratch,
    env: { ...env, DBOS_SYSTEM_DATABASE_URL: database },
  });
  let log = "";
  return new Promise((resolve, reject) => {
    worker.stderr.on("data", (chunk) => {
      log += chunk;
      if (log.includes(`worker ${id}:`)) resolve(worker);
    });
    worker.on("exit", (code) => reject(new Error(`worker exited ${code}: ${log}`)));
  });
}

async function round(index) {
  const database = await freshDatabase(index);
  await prosec(["migrate"], database);
  writeFileSync(
    join(scratch, "runs.jsonl"),
    Array.from({ length: MANY }, (_, i) => JSON.stringify({ topic: `t${i}` })).join("\n") + "\n",
  );
  let start = performance.now();
  await prosec(["submit", "summary.prose", "--inputs", "runs.jsonl", "--id", `many${index}`], database);
  const many = (MANY * 1000) / (performance.now() - start);

  start = performance.now();
  await pMap(
    Array.from({ length: ONE_BY_ONE }, (_, i) => i),
    (i) => prosec(["submit", "summary.prose", "-i", `topic=one ${i}`, "--id", `one${index}-${i}`], database),
    { concurrency: STREAMS },
  );
  const oneByOne = (ONE_BY_ONE * 1000) / (performance.now() - start);

  const workers = await Promise.all(Array.from({ length: WORKERS }, (_, i) => startWorker(`w${i}`, database)));
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  const total = MANY + ONE_BY_ONE;
  let row;
  for (;;) {
    row = (
      await client.query(
        `SELECT count(*) FILTER (WHERE status = 'SUCCESS') AS done, count(*) FILTER (WHERE status = 'ERROR') AS failed,
                min(started_at_epoch_ms) AS first, max(updated_at) AS last
         FROM dbos.workflow_status WHERE name = 'prosec.run'`,
      )
    ).rows[0];
    if (Number(row.failed) > 0) throw new Error(`${row.failed} runs failed`);
    if (Number(row.done) === total) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await client.end();
  for (const worker of workers) {
    worker.removeAllListeners("exit");
    worker.kill("SIGKILL");
  }
  const capacity = (total * 1000) / (Number(row.last) - Number(row.first));
  return { many, oneByOne, capacity };
}

const rounds = [];
for (let index = 0; index < ROUNDS; index++) rounds.push(await round(index));
const figure = (key) => median(rounds.map((r) => r[key])).toFixed(1);
console.log(`| what | runs | runs/s (median of ${ROUNDS}) |`);
console.log("| --- | --- | --- |");
console.log(`| \`prosec submit --inputs runs.jsonl\` (one process) | ${MANY} | ${figure("many")} |`);
console.log(`| \`prosec submit -i\` once a run, ${STREAMS} at a time | ${ONE_BY_ONE} | ${figure("oneByOne")} |`);
console.log(
  `| ${WORKERS} workers running them (first dequeue to last end) | ${MANY + ONE_BY_ONE} | ${figure("capacity")} |`,
);
console.log(
  `\nsubmit --inputs / workers' runs/s per round (min / median / max): ${spread(
    rounds.map((r) => r.many / r.capacity),
    2,
  )}`,
);
console.log(
  `submit once a run / workers' runs/s per round (min / median / max): ${spread(
    rounds.map((r) => r.oneByOne / r.capacity),
    2,
  )}`,
);
server.close();
postgres.stop();
rmSync(scratch, { recursive: true, force: true });
