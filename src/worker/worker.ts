/**
 * `prosec worker`: one process serving a program's runs from a DBOS queue. DBOS is the engine: it
 * checkpoints steps, dequeues runs under the concurrency limit and recovers this worker's own runs
 * when it restarts under the same id. What DBOS leaves to paid failover, runs of a worker that died
 * and does not come back, this worker adopts: a worker silent for `adoptAfterMs` has its unfinished
 * runs put back on the shared queue, where any worker of the same program takes them.
 */
import { DBOS, DBOSClient } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { registerProgram, type ProgramRunner } from "../../runtime/dbos-runs.js";
import { McpServerPool } from "../../runtime/index.js";
import { Secrets } from "../../runtime/host.js";
import { APPLICATION, Heartbeats, migrate } from "./database.js";
import { dbosLogger } from "./dbos-logger.js";
import { DatabaseOutage } from "./outage.js";
import { releaseOtherVersions } from "./other-versions.js";
import { WorkerRunStops } from "./run-stops.js";

/**
 * How often this worker's queues look for work. DBOS's default, a second, made a run wait half a
 * second in the queue on average, and every `parallel:` branch (a child workflow on the worker's own
 * queue) as long again. A poll is one indexed query; 20 a second per queue is cheap for PostgreSQL.
 */
const QUEUE_POLL_MS = 50;

/** The heartbeat's first retry while the database is away; each next one waits twice as long, up to MAX_RETRY_MS. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;

export interface WorkerSettings {
  readonly program: ProgramRunner;
  readonly programName: string;
  /** The DBOS application version: a hash of the compiled program. */
  readonly version: string;
  readonly databaseUrl: string;
  /** Stable across restarts, so a restarted worker recovers its own runs. */
  readonly executorId: string;
  readonly queue: string;
  /** Runs at once on this worker. */
  readonly concurrency: number;
  readonly adoptAfterMs: number;
  /** How long the database may stay unreachable before the worker gives up (`--outage-limit`). */
  readonly outageLimitMs: number;
  /** How often waiting branches look at the database (default 500 ms). */
  readonly pollMs?: number;
  readonly cwd: string;
  readonly log: (line: string) => void;
}

export interface Worker {
  /** Stops taking work and the runs in flight, and puts them back on the queue for other workers; then its MCP servers. */
  stop(): Promise<void>;
  /** Signals the worker's MCP servers to stop, without waiting (the process exits at once). */
  stopNow(): void;
  /** Resolves, with the reason, when the database stayed unreachable past the outage limit. */
  readonly gaveUp: Promise<string>;
}

export async function startWorker(settings: WorkerSettings): Promise<Worker> {
  const { databaseUrl: url, executorId, queue, log } = settings;
  let giveUp!: (reason: string) => void;
  const gaveUp = new Promise<string>((resolve) => (giveUp = resolve));
  const outage = new DatabaseOutage(settings.outageLimitMs, log, giveUp);
  await migrate(url);
  const logger = dbosLogger(process.env["PROSEC_DBOS_LOG_LEVEL"] ?? "warn", log);
  const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: APPLICATION, logger });
  const ownQueue = `${queue}.worker.${executorId}`;
  await releaseOtherVersions(client, executorId, settings.version, queue, log);
  // The heartbeat is this worker's own look at the database: its failures are the outage DBOS's
  // retries ride through, said once here (and not once a retry by DBOS, see dbosLogger).
  const pool = new pg.Pool({ connectionString: url, max: 3, connectionTimeoutMillis: 5000, query_timeout: 10_000 });
  // An idle connection the server dropped (a restart, pg_terminate_backend, idle_session_timeout):
  // the pool discards it and the next query connects anew. Unhandled, it would end the process.
  pool.on("error", () => undefined);
  const stops = new WorkerRunStops(pool, executorId);
  // The MCP servers live as long as the worker: started on the first session that may use them,
  // shared by its runs, stopped when it stops. Their stderr goes to the worker's log, redacted.
  const apiKey = process.env["ANTHROPIC_API_KEY"];
  const secrets = Secrets.of(apiKey, process.env, undefined);
  const mcpServers = new McpServerPool({
    cwd: settings.cwd,
    apiKey,
    secret: (value) => secrets.add(value),
    log: (server, text) => {
      for (const line of text.trimEnd().split("\n")) log(`mcp server ${server}: ${secrets.redact(line)}`);
    },
  });
  registerProgram(settings.program, {
    client,
    ownQueue,
    pollMs: settings.pollMs ?? 500,
    stops,
    runOptions: (runId) => ({
      cwd: settings.cwd,
      mcpServers,
      // No onPermission: a call an explicit `prompt` puts to a person waits in the database for
      // `prosec approve` / `deny` (runtime/tools/approvals.ts); the implicit default of `bash:` is not offered.
      onEvent: (event) => {
        // The run's own start and end; a called program's carry its `source`.
        if (event.source !== undefined) return;
        // A run stopped here (cancelled, taken over, released at shutdown) did not fail: say why it stopped.
        const stopped = stops.reason(runId);
        if (event.type === "run-start") log(`run ${runId}: running`);
        else if (event.type === "run-end") log(`run ${runId}: ${event.ok ? "finished" : (stopped ?? "failed")}`);
        else if (event.type === "error" && stopped === undefined) log(`run ${runId}: ${event.message}`);
      },
    }),
  });
  DBOS.setConfig({
    name: APPLICATION,
    systemDatabaseUrl: url,
    applicationVersion: settings.version,
    executorID: executorId,
    listenQueues: [queue, ownQueue],
    runMigrations: false,
    logger,
  });
  await DBOS.launch();
  await DBOS.registerQueue(queue, {
    workerConcurrency: settings.concurrency,
    minPollingIntervalMs: QUEUE_POLL_MS,
    onConflict: "always_update",
  });
  await DBOS.registerQueue(ownQueue, { minPollingIntervalMs: QUEUE_POLL_MS, onConflict: "always_update" });

  const heartbeats = new Heartbeats(pool, executorId, queue, settings.version, settings.adoptAfterMs);
  await heartbeats.beat();
  const interval = Math.max(100, Math.floor(settings.adoptAfterMs / 4));
  let timer: NodeJS.Timeout | undefined;
  let retryMs = FIRST_RETRY_MS;
  const tick = async (): Promise<void> => {
    try {
      await heartbeats.beat();
    } catch (error) {
      outage.failed(error);
      schedule(Math.min(retryMs, interval));
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
      return;
    }
    outage.reached();
    retryMs = FIRST_RETRY_MS;
    try {
      if (outage.reachableForMs() >= settings.adoptAfterMs) await adoptSilentWorkers();
    } catch (error) {
      log(`adopting the runs of silent workers failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    schedule(interval);
  };
  const schedule = (ms: number): void => {
    if (timer !== undefined) timer = setTimeout(() => void tick(), ms);
  };
  const adoptSilentWorkers = async (): Promise<void> => {
    for (const dead of await heartbeats.claimSilent(settings.adoptAfterMs)) {
      // Back on the queue the dead worker served; only workers of the same program take them.
      const runs = await DBOS.listWorkflows({ status: "PENDING", executorId: dead.executorId, hasParent: false });
      if (runs.length > 0)
        await DBOS.resumeWorkflows(
          runs.map((run) => run.workflowID),
          { queueName: dead.queue },
        );
      log(
        `worker ${dead.executorId} was silent for ${settings.adoptAfterMs} ms: ${runs.length} unfinished run${runs.length === 1 ? "" : "s"} put back on the queue`,
      );
    }
  };
  timer = setTimeout(() => void tick(), interval);
  log(
    `worker ${executorId}: ${settings.programName}.prose (version ${settings.version}) on queue "${queue}", ${settings.concurrency} run${settings.concurrency === 1 ? "" : "s"} at once`,
  );
  return {
    gaveUp,
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      // Sessions stop at once (what they did since is not recorded); no new run is taken.
      stops.stopAll();
      await DBOS.shutdown();
      // Released at once, not after --adopt-after: any worker of the program takes them from the queue.
      const unfinished = await client.listWorkflows({ status: "PENDING", executorId, hasParent: false });
      if (unfinished.length > 0)
        await client.resumeWorkflows(
          unfinished.map((run) => run.workflowID),
          { queueName: queue },
        );
      log(
        `${unfinished.length} unfinished run${unfinished.length === 1 ? "" : "s"} put back on queue "${queue}" for other workers`,
      );
      await client.destroy();
      await pool.end();
      await mcpServers.close();
    },
    stopNow: () => mcpServers.stopNow(),
  };
}
