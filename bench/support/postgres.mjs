// PostgreSQL for the DBOS benchmarks (scale-out, submit-many): the server PROSEC_TEST_DATABASE_URL names,
// or a throwaway one from .ci/postgres in the benchmark's scratch folder; a fresh database per round.
import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const script = join(root, ".ci/postgres");

/** { url, stop() }: the server to create databases on. */
export async function benchPostgres(scratch) {
  const named = process.env.PROSEC_TEST_DATABASE_URL;
  if (named) return { url: named, stop: () => {} };
  const data = join(scratch, "pg");
  const url = execFileSync("bash", [script, "start", data], {
    encoding: "utf8",
    env: { ...process.env, PROSEC_PG_PORT: String(await freePort()) },
  }).trim();
  return { url, stop: () => execFileSync("bash", [script, "stop", data]) };
}

/** A new empty database `name` on the server at `serverUrl` (dropped first if a crashed run left it): its URL. */
export async function freshDatabase(serverUrl, name) {
  const pg = (await import("pg")).default;
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

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
