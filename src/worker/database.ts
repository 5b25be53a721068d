/**
 * The PostgreSQL database DBOS keeps its workflows in (`DBOS_SYSTEM_DATABASE_URL`), and prosec's one
 * table beside them: the workers' heartbeats, by which a worker tells that another one died.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { DatabaseMismatch, DatabaseUnreachable, NoRunsDatabase } from "../errors.js";
import { maskedUrl } from "../masked-url.js";

/** The DBOS application name: every prosec worker and client shares it. */
export const APPLICATION = "prosec";

/** The schema of prosec's own table (DBOS's are in `dbos`). */
const SCHEMA = "prosec";

// Any constant works: it only has to be the same in every worker. ("prosec" in ASCII.)
const MIGRATION_LOCK = 0x70726f736563;

/** `error` as `NoRunsDatabase` when PostgreSQL says the database or DBOS's tables are missing, as `DatabaseMismatch` when they have another shape; else itself. */
export function explainMissing(error: unknown, url: string): unknown {
  const code = (error as { code?: string } | undefined)?.code;
  if (code === UNDEFINED_DATABASE)
    return new NoRunsDatabase(
      `the database ${maskedUrl(url)} (DBOS_SYSTEM_DATABASE_URL) does not exist: no run was submitted to it yet (a worker, prosec submit or prosec migrate creates it)`,
    );
  if (code === UNDEFINED_TABLE || code === UNDEFINED_SCHEMA)
    return new NoRunsDatabase(
      `the database ${maskedUrl(url)} (DBOS_SYSTEM_DATABASE_URL) has no DBOS tables: no run was submitted to it yet (a worker, prosec submit or prosec migrate creates them)`,
    );
  // Syntax errors and access rule violations: prosec's queries only fail so against tables of another shape.
  if (code?.startsWith(SYNTAX_ERROR_OR_ACCESS_RULE_VIOLATION) === true)
    return new DatabaseMismatch(
      "the database's DBOS tables are not the ones this prosec expects: run `prosec migrate`",
    );
  return error;
}

/** Fails fast with `DatabaseUnreachable` when the server at `url` cannot be reached. */
export async function checkReachable(url: string): Promise<void> {
  const target = new URL(url);
  target.pathname = "/postgres";
  const client = connection(target.toString(), { connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new DatabaseUnreachable(
      `cannot reach the database at ${maskedUrl(url)} (DBOS_SYSTEM_DATABASE_URL): ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A connection to `url` that survives the server dropping it (a restart, pg_terminate_backend,
 * idle_session_timeout): the query in flight fails, instead of an unhandled 'error' ending the process.
 */
export function connection(url: string, config: pg.ClientConfig = {}): pg.Client {
  const client = new pg.Client({ ...config, connectionString: url });
  client.on("error", () => undefined);
  return client;
}

/**
 * Creates or migrates the system database, once: workers that start together take turns under one
 * advisory lock, in the system database itself (two migrations of an empty database at the same
 * moment break it). Creating the database needs no lock: a second CREATE DATABASE just fails.
 */
export async function migrate(url: string): Promise<void> {
  await createDatabase(url);
  const lock = connection(url);
  await lock.connect();
  // The lock's session waits idle while DBOS migrates: a database's idle_session_timeout must not end it.
  // (PostgreSQL before 14 has no such setting.)
  await lock.query("SET idle_session_timeout = 0").catch(() => undefined);
  try {
    // Polled, not waited for: a session waiting in pg_advisory_lock holds a snapshot, and DBOS's
    // CREATE INDEX CONCURRENTLY waits for every snapshot in the database: a deadlock (seen).
    while (
      !(await lock.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [MIGRATION_LOCK])).rows[0]!
        .locked
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await quietly(() => DBOS.migrate(url));
    await lock.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
    await lock.query(
      `CREATE TABLE IF NOT EXISTS ${SCHEMA}.workers (executor_id text PRIMARY KEY, queue text NOT NULL, last_seen timestamptz NOT NULL)`,
    );
    // Added after 0.2, for `prosec status` to tell why a queued run waits; null in rows of older workers.
    await lock.query(
      `ALTER TABLE ${SCHEMA}.workers ADD COLUMN IF NOT EXISTS version text, ADD COLUMN IF NOT EXISTS silent_after_ms integer`,
    );
  } finally {
    await lock.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => undefined);
    await lock.end();
  }
}

/**
 * Runs `body` with DBOS's console lines on stderr, without its progress chatter ("Running DBOS system
 * database migrations..."): DBOS.migrate takes no logger, and `submit`'s stdout is the run id alone.
 */
async function quietly<T>(body: () => Promise<T>): Promise<T> {
  const methods = ["log", "info", "debug", "warn", "error"] as const;
  const saved = methods.map((method) => console[method]);
  for (const method of methods)
    console[method] = (...parts: unknown[]) => {
      const line = parts.map(String).join(" ");
      if (!/^Running DBOS system database migrations/.test(line)) process.stderr.write(`${line}\n`);
    };
  try {
    return await body();
  } finally {
    methods.forEach((method, index) => (console[method] = saved[index]!));
  }
}

/** Creates the database `url` names when it does not exist yet, from the server's `postgres` database. */
async function createDatabase(url: string): Promise<void> {
  const probe = connection(url);
  try {
    await probe.connect();
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== UNDEFINED_DATABASE) throw error;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const target = new URL(url);
  const maintenance = new URL(url);
  maintenance.pathname = "/postgres";
  const client = connection(maintenance.toString());
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(decodeURIComponent(target.pathname.slice(1)))}`);
  } catch (error) {
    // Another worker created it first: the duplicate's error, or the catalog's unique index when they raced.
    const code = (error as { code?: string }).code;
    if (code !== DUPLICATE_DATABASE && code !== UNIQUE_VIOLATION) throw error;
  } finally {
    await client.end();
  }
}

const UNDEFINED_DATABASE = "3D000";
const DUPLICATE_DATABASE = "42P04";
const UNIQUE_VIOLATION = "23505";
const UNDEFINED_TABLE = "42P01";
const UNDEFINED_SCHEMA = "3F000";
/** The SQLSTATE class of UNDEFINED_COLUMN, DATATYPE_MISMATCH and the like. */
const SYNTAX_ERROR_OR_ACCESS_RULE_VIOLATION = "42";

export interface LiveWorker {
  readonly id: string;
  /** Null for a worker of prosec 0.2, which did not record it. */
  readonly version: string | null;
}

/** The workers serving `queue` that have not been silent longer than their own `--adopt-after`. */
export async function liveWorkers(url: string, queue: string): Promise<LiveWorker[]> {
  const client = connection(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ executor_id: string; version: string | null }>(
      `SELECT executor_id, version FROM ${SCHEMA}.workers
       WHERE queue = $1 AND last_seen > now() - make_interval(secs => coalesce(silent_after_ms, $2)::double precision / 1000)
       ORDER BY executor_id`,
      [queue, DEFAULT_SILENT_AFTER_MS],
    );
    return rows.map((row) => ({ id: row.executor_id, version: row.version }));
  } catch (error) {
    // No workers table yet: no worker ever started against this database.
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return [];
    throw error;
  } finally {
    await client.end();
  }
}

/** `prosec worker --adopt-after`'s default, for rows that do not record their own. */
const DEFAULT_SILENT_AFTER_MS = 30_000;

/** Worker liveness: each worker stamps its row; a row left unstamped too long is a dead worker's. */
export class Heartbeats {
  constructor(
    private readonly pool: pg.Pool,
    private readonly executorId: string,
    private readonly queue: string,
    /** The program version this worker serves (DBOS's application version). */
    private readonly version: string,
    /** After this much silence other workers take this one for dead (its `--adopt-after`). */
    private readonly silentAfterMs: number,
  ) {}

  async beat(): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${SCHEMA}.workers (executor_id, queue, last_seen, version, silent_after_ms) VALUES ($1, $2, now(), $3, $4)
       ON CONFLICT (executor_id) DO UPDATE SET queue = EXCLUDED.queue, last_seen = now(), version = EXCLUDED.version, silent_after_ms = EXCLUDED.silent_after_ms`,
      [this.executorId, this.queue, this.version, this.silentAfterMs],
    );
  }

  /**
   * The workers silent for longer than `silenceMs`, each handed to exactly one caller: their rows are
   * deleted in the same transaction that finds them, and rows another worker is taking are skipped.
   */
  async claimSilent(silenceMs: number): Promise<Array<{ readonly executorId: string; readonly queue: string }>> {
    const { rows } = await this.pool.query<{ executor_id: string; queue: string }>(
      `DELETE FROM ${SCHEMA}.workers WHERE executor_id IN (
         SELECT executor_id FROM ${SCHEMA}.workers
         WHERE last_seen < now() - make_interval(secs => $1::double precision / 1000) AND executor_id <> $2
         FOR UPDATE SKIP LOCKED)
       RETURNING executor_id, queue`,
      [silenceMs, this.executorId],
    );
    return rows
      .map((row) => ({ executorId: row.executor_id, queue: row.queue }))
      .sort((a, b) => a.executorId.localeCompare(b.executorId));
  }
}
