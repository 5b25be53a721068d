/**
 * Where DBOS's own log lines go in a worker. DBOS warns on every retry of every query while the
 * database is away (dozens of lines a second across a worker's runs); the worker says an outage
 * once itself (outage.ts), so those warnings are dropped unless PROSEC_DBOS_LOG_LEVEL is `debug`.
 */
import type { DLogger } from "@dbos-inc/dbos-sdk";

const LEVELS = ["error", "warn", "info", "debug"] as const;
type Level = (typeof LEVELS)[number];

/** What DBOS says when the database is unreachable or dropped a connection. */
const CONNECTION_TROUBLE =
  /Database connection failed|Unexpected error (in pool|on a system database connection|in system database client)|notifications? (client|listener)|Notifier|Connection terminated|ECONNREFUSED|ECONNRESET|terminating connection|database system is (starting up|shutting down|in recovery)|timeout exceeded when trying to connect/i;

export function dbosLogger(levelName: string, write: (line: string) => void): DLogger {
  const threshold = LEVELS.indexOf(LEVELS.includes(levelName as Level) ? (levelName as Level) : "warn");
  const emit = (level: Level, entry: unknown): void => {
    if (LEVELS.indexOf(level) > threshold) return;
    const text = entry instanceof Error ? entry.message : typeof entry === "string" ? entry : JSON.stringify(entry);
    if (threshold < LEVELS.indexOf("debug") && CONNECTION_TROUBLE.test(text)) return;
    write(`dbos ${level}: ${text}`);
  };
  return {
    error: (entry) => emit("error", entry),
    warn: (entry) => emit("warn", entry),
    info: (entry) => emit("info", entry),
    debug: (entry) => emit("debug", entry),
  };
}
