/**
 * The PostgreSQL server of the DBOS tests. CI starts one (`.ci/run`) and names it in
 * PROSEC_TEST_DATABASE_URL; without that, this global setup starts a throwaway server with
 * `.ci/postgres` (installing Debian's postgresql when missing) and stops it when the tests end.
 * Either way every test file gets a database of its own (`freshDatabase`).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

const script = fileURLToPath(new URL("../../.ci/postgres", import.meta.url));

export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env["PROSEC_TEST_DATABASE_URL"]) return undefined;
  const server = await startPostgres();
  process.env["PROSEC_TEST_DATABASE_URL"] = server.url;
  return () => server.remove();
}

/** A PostgreSQL server of one's own: a fault test stops and restarts it without disturbing other files. */
export interface PostgresServer {
  /** The server's URL (its database `prosec_test` is not created: use `freshDatabase`). */
  readonly url: string;
  /** Stops the server (`pg_ctl -m fast`: every connection is closed). */
  stop(): void;
  /** Starts it again on the same port, with the same data (when stopped). */
  start(): void;
  /** Stops it and deletes its data. */
  remove(): void;
}

export async function startPostgres(): Promise<PostgresServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "prosec-pg-"));
  // The server runs as the postgres user, which must reach its data folder inside.
  chmodSync(dir, 0o755);
  const data = join(dir, "data");
  const start = (): string =>
    execFileSync("bash", [script, "start", data], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, PROSEC_PG_PORT: String(port) },
    }).trim();
  let running = true;
  const stop = (): void => {
    execFileSync("bash", [script, "stop", data], { stdio: "inherit" });
    running = false;
  };
  let url: string;
  try {
    url = start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    stop,
    start() {
      if (!running) start();
      running = true;
    },
    remove() {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A new, empty database on the test server; its URL. */
export async function freshDatabase(name: string, server = process.env["PROSEC_TEST_DATABASE_URL"]): Promise<string> {
  if (!server)
    throw new Error("PROSEC_TEST_DATABASE_URL is not set (test/support/postgres.ts starts a server when it is not)");
  const database = `prosec_${name}_${process.pid}_${Date.now().toString(36)}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  const admin = new URL(server);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${database}`);
  } finally {
    await client.end();
  }
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
