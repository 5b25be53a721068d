/**
 * DBOS workers under the faults an operator meets: the database restarted or failing over, its
 * connections terminated or timed out while idle, a long outage. Each test drives real worker
 * processes through the CLI against a PostgreSQL server of this file's own (stopping the shared one
 * would break the other DBOS files running beside it).
 */
import { spawn } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bin } from "../support/cli.js";
import { EXIT } from "../../src/exit-codes.js";
import {
  checkpointedIdentities,
  environment,
  fakeModel,
  folder,
  mostAsked,
  prosec,
  reportModel,
  repeatedAfter,
  result,
  startWorker,
  stopChildren,
  stopped,
  submit,
  uninterrupted,
  waitFor,
  waitForRunsUnderWay,
  withDatabase,
  type RunningWorker,
} from "../support/dbos.js";
import type pg from "pg";
import { freshDatabase, startPostgres, type PostgresServer } from "../support/postgres.js";

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);
afterAll(() => postgres?.remove());
afterEach(async () => {
  await stopChildren();
  // A test that failed with the server stopped leaves it so; the next one needs it.
  postgres?.start();
});

const TOPICS = ["tea", "rivers", "bridges", "owls"];

/** A worker's own lines about the database (one when it goes, one when it is back). */
function outageLines(worker: RunningWorker): string[] {
  return worker
    .log()
    .split("\n")
    .filter((line) => line.startsWith("database "));
}

/**
 * Closes every connection of `database` but the caller's, what an operator's pg_terminate_backend does,
 * then waits until every worker has written its heartbeat again (over a new connection); how many it closed.
 */
function terminateConnections(database: string, workers: readonly RunningWorker[]): Promise<number> {
  return withDatabase(database, async (client) => {
    const { rows } = await client.query<{ terminated: boolean; at: Date }>(
      `SELECT pg_terminate_backend(pid) AS terminated, now() AS at FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    const at = rows[0]?.at;
    await waitFor(async () => {
      const { rows: beats } = await client.query<{ executor_id: string }>(
        "SELECT executor_id FROM prosec.workers WHERE last_seen > $1",
        [at],
      );
      return workers.every((worker) => beats.some((beat) => beat.executor_id === worker.id));
    }, "every worker's heartbeat after its connections were terminated");
    return rows.filter((row) => row.terminated).length;
  });
}

/** Runs `body` with a connection to the server's own `postgres` database (no test's settings apply there). */
async function withServer<T>(body: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new URL(postgres.url);
  admin.pathname = "/postgres";
  return withDatabase(admin.toString(), body);
}

/** How many sessions of `database` the server has ended with an error of its own (an idle timeout is one). */
function sessionsEndedByServer(database: string): Promise<number> {
  return withServer(async (client) => {
    const { rows } = await client.query<{ ended: string }>(
      "SELECT sessions_fatal + sessions_killed AS ended FROM pg_stat_database WHERE datname = $1",
      [new URL(database).pathname.slice(1)],
    );
    return Number(rows[0]?.ended ?? 0);
  });
}

/** Whether a session of `database` opened since `since` (ms) has read a run's status. */
function statusReadSince(database: string, since: number): Promise<boolean> {
  return withServer(async (client) => {
    const { rows } = await client.query(
      `SELECT 1 FROM pg_stat_activity
       WHERE datname = $1 AND backend_start >= to_timestamp($2 / 1000.0) AND query ILIKE '%workflow_status%'`,
      [new URL(database).pathname.slice(1), since],
    );
    return rows.length > 0;
  });
}

describe("DBOS workers under database faults", () => {
  it(
    "ride through a database restart and pg_terminate_backend with runs in flight on two workers",
    { timeout: 300_000 },
    async () => {
      const cwd = folder();
      const expected = await Promise.all(TOPICS.map((topic) => uninterrupted(cwd, topic)));
      const server = await fakeModel({ respond: reportModel, latencyMs: 150 });
      const database = await freshDatabase("restart", postgres.url);
      const env = environment(database, server);
      const workers = await Promise.all(["w1", "w2"].map((id) => startWorker(id, cwd, env)));
      for (const topic of TOPICS) await submit(cwd, env, topic, `run-${topic}`);

      // A restart with runs in flight: the database is away until both workers have seen it gone.
      await waitForRunsUnderWay(database, ["w1", "w2"]);
      const finished = await checkpointedIdentities(database);
      const stoppedAt = server.requests.length;
      postgres.stop();
      await waitFor(() => workers.every((worker) => /database unreachable/.test(worker.log())), "both to see it gone");
      postgres.start();
      await waitFor(() => workers.every((worker) => /database reachable again/.test(worker.log())), "reconnection");

      // Then every connection terminated under them, twice (the second time once both have reconnected).
      for (let round = 0; round < 2; round++) expect(await terminateConnections(database, workers)).toBeGreaterThan(0);

      const outputs = await Promise.all(TOPICS.map((topic) => result(cwd, env, `run-${topic}`)));
      expect(outputs).toEqual(expected);
      for (const worker of workers) {
        expect(worker.process.exitCode).toBeNull();
        const lines = outageLines(worker);
        expect(lines[0]).toMatch(/^database unreachable \(.+\): runs pause at their next checkpoint; retrying/);
        expect(lines[1]).toMatch(/^database reachable again after \d+\.\d s: carrying on$/);
        // One outage, one pair of lines (a terminated connection is reconnected, not an outage);
        expect(lines.length).toBeLessThanOrEqual(4);
        expect(worker.log()).not.toMatch(/Unhandled|BoundPool|\n\s+at /);
        // the silent peer is not adopted: its silence was the database's.
        expect(worker.log()).not.toMatch(/was silent/);
      }
      expect(repeatedAfter(server, stoppedAt, finished)).toEqual([]);
      expect(mostAsked(server)).toBe(1);
      for (const worker of workers) expect(await stopped(worker)).toBe(EXIT.ok);
    },
  );

  it("serves runs when idle_session_timeout closes its idle connections", { timeout: 120_000 }, async () => {
    const cwd = folder();
    const [expected] = await Promise.all([uninterrupted(cwd, "tea")]);
    const server = await fakeModel({ respond: reportModel });
    const database = await freshDatabase("idle", postgres.url);
    await withDatabase(database, (client) =>
      client.query(`ALTER DATABASE ${new URL(database).pathname.slice(1)} SET idle_session_timeout = '300ms'`),
    );
    const env = environment(database, server);
    const worker = await startWorker("w1", cwd, env);
    await waitFor(async () => (await sessionsEndedByServer(database)) > 0, "the server to close an idle connection");
    await submit(cwd, env, "tea", "run-tea");
    expect(await result(cwd, env, "run-tea")).toEqual(expected);
    expect(worker.process.exitCode).toBeNull();
    expect(worker.log()).not.toMatch(/Unhandled|\n\s+at /);
    expect(await stopped(worker)).toBe(EXIT.ok);
  });

  it("exit 8 once the database stays away past --outage-limit", { timeout: 120_000 }, async () => {
    const cwd = folder();
    const server = await fakeModel({ respond: reportModel });
    const database = await freshDatabase("limit", postgres.url);
    const env = environment(database, server);
    const worker = await startWorker("w1", cwd, env, { extra: ["--outage-limit", "3"] });
    postgres.stop();
    const stoppedAt = Date.now();
    expect(await worker.exited).toBe(EXIT.network);
    const after = Date.now() - stoppedAt;
    // The limit, then the stop (seconds on a loaded machine); without the limit it would wait for ever.
    expect(after).toBeGreaterThanOrEqual(3000);
    expect(after).toBeLessThan(3000 + 30_000);
    const lines = worker.log().trim().split("\n");
    expect(lines.filter((line) => line.startsWith("database unreachable"))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(
      /^prosec: the database was unreachable for \d+\.\d s \(--outage-limit\): .+; stopping\. Runs in flight are recovered when this worker starts again, or adopted by another one$/,
    );
    postgres.start();
    const usage = await prosec(["worker", "report.prose", "--outage-limit", "0"], cwd, env);
    expect([usage.code, usage.stderr]).toEqual([
      EXIT.usage,
      "prosec: --outage-limit takes a number of seconds above 0\n",
    ]);
  });

  it(
    "result --timeout keeps its deadline when the database goes away mid-wait (6), or never answers (8)",
    { timeout: 120_000 },
    async () => {
      const cwd = folder();
      const server = await fakeModel({ respond: reportModel });
      const database = await freshDatabase("deadline", postgres.url);
      const env = environment(database, server);
      // No worker serves the queue: the run stays ENQUEUED, held by no worker.
      await submit(cwd, env, "tea", "run-tea");
      const queued = await prosec(["status", "run-tea", "--json"], cwd, env);
      expect(JSON.parse(queued.stdout)).toMatchObject({ status: "ENQUEUED", worker: null });
      // The deadline leaves a loaded machine time to start the process and read the status once.
      const started = Date.now();
      const waiting = prosec(["result", "run-tea", "--timeout", "12", "--json"], cwd, env);
      await waitFor(() => statusReadSince(database, started), "result to read the run's status");
      postgres.stop();
      const pending = await waiting;
      const took = Date.now() - started;
      expect(pending.code).toBe(EXIT.pending);
      expect(JSON.parse(pending.stdout)).toEqual({ type: "pending", runId: "run-tea", status: "ENQUEUED" });
      expect(pending.stderr).toMatch(
        /^prosec: run run-tea is still pending \(ENQUEUED\) \(as of \d+\.\d s ago: the database has not answered since\) after 12 s; see `prosec status run-tea`\n$/,
      );
      // The deadline, a second of grace, and the process's own start (seconds on a loaded machine); a
      // `result` that waited for the database would run into the test's timeout.
      expect(took).toBeGreaterThanOrEqual(12_000);
      expect(took).toBeLessThan(40_000);

      const unreachable = await prosec(["result", "run-tea", "--timeout", "2"], cwd, env);
      expect(unreachable.code).toBe(EXIT.network);
      expect(unreachable.stderr).toMatch(
        /^prosec: cannot reach the database at postgresql:\/\/postgres@127\.0\.0\.1:\d+\/\w+ \(DBOS_SYSTEM_DATABASE_URL\)(: connect ECONNREFUSED [\d.:]+)? \(tried for 2 s\)\n$/,
      );
      postgres.start();
      const answered = await prosec(["result", "run-tea", "--timeout", "0"], cwd, env);
      expect(answered.code).toBe(EXIT.pending);
    },
  );

  it(
    "SIGTERM while the database is down: the stop takes at most --outage-limit (exit 8); a second signal exits at once (130)",
    { timeout: 180_000 },
    async () => {
      const cwd = folder();
      const server = await fakeModel({ respond: reportModel, latencyMs: 300 });
      const database = await freshDatabase("stop_outage", postgres.url);
      const env = environment(database, server);

      const worker = await startWorker("w1", cwd, env, { extra: ["--outage-limit", "6"] });
      await submit(cwd, env, "tea", "run-tea");
      await waitForRunsUnderWay(database, ["w1"], 1);
      postgres.stop();
      await waitFor(() => worker.log().includes("database unreachable"), "the worker to notice the outage");
      const signalledAt = Date.now();
      worker.process.kill("SIGTERM");
      // The worker would give up on its own at --outage-limit too; the stop must not wait longer than that.
      expect(await worker.exited).toBe(EXIT.network);
      const took = Date.now() - signalledAt;
      expect(took).toBeLessThan(6000 + 30_000);
      expect(worker.log()).toContain("stopping: runs in flight stop at their next turn or tool call");
      expect(worker.log()).not.toContain("prosec: internal error");

      // A second signal while the stop waits: the worker exits at once.
      postgres.start();
      const patient = await startWorker("w2", cwd, env, { extra: ["--outage-limit", "120"] });
      postgres.stop();
      await waitFor(() => patient.log().includes("database unreachable"), "the second worker to notice the outage");
      patient.process.kill("SIGTERM");
      await waitFor(() => patient.log().includes("stopping:"), "the second worker to begin stopping");
      const againAt = Date.now();
      patient.process.kill("SIGINT");
      expect(await patient.exited).toBe(EXIT.interrupted);
      // At once, not after the 120 s the worker would wait for the database (a loaded machine takes seconds).
      expect(Date.now() - againAt).toBeLessThan(30_000);
      postgres.start();
    },
  );
});

describe("prosec result without --timeout", () => {
  it(
    "waits through an outage that began before it started, then prints the outputs",
    { timeout: 180_000 },
    async () => {
      const cwd = folder();
      const server = await fakeModel({ respond: reportModel });
      const database = await freshDatabase("result_outage", postgres.url);
      const env = environment(database, server);
      const worker = await startWorker("w1", cwd, env);
      await submit(cwd, env, "tea", "run-tea");
      const outputs = await result(cwd, env, "run-tea");
      expect(await stopped(worker)).toBe(EXIT.ok);

      postgres.stop();
      const child = spawn(process.execPath, [bin, "result", "run-tea", "--json"], { cwd, env });
      let stderr = "";
      let stdout = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      try {
        await waitFor(() => stderr.includes("waiting for it"), "result to say it waits for the database");
        expect(stderr).toMatch(
          /^prosec: cannot reach the database at .+; waiting for it \(Ctrl-C to stop, or use --timeout\)\n$/,
        );
        postgres.start();
        expect(await exited).toBe(EXIT.ok);
        expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toMatchObject({ outputs });
      } finally {
        child.kill("SIGKILL");
      }
    },
  );
});
