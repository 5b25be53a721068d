/**
 * A DBOS_SYSTEM_DATABASE_URL that is not a PostgreSQL URL, or a database whose DBOS tables have
 * another shape: one line each, with the exit-code table's code, never "internal error".
 */
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { prosec, stopChildren, withDatabase } from "../support/dbos.js";
import { freshDatabase } from "../support/postgres.js";
import { temporaryFolder } from "../support/temp.js";

const cwd = temporaryFolder("prosec-dbos-problems-");

afterAll(stopChildren);

describe("a DBOS database prosec cannot use", () => {
  it("a URL that is not postgres:// is a usage error for runs, run --resume and view", async () => {
    const env = { ...process.env, DBOS_SYSTEM_DATABASE_URL: "not a url", NO_COLOR: "1" };
    for (const args of [["runs"], ["run", "--resume", "x"], ["view", "x", "--out", "f.html"]]) {
      const { code, stderr } = await prosec(args, cwd, env);
      expect([code, stderr], args.join(" ")).toEqual([
        EXIT.usage,
        "prosec: DBOS_SYSTEM_DATABASE_URL is not a postgres:// URL\n",
      ]);
    }
  });

  it("an unreachable database is named without the password in its query", async () => {
    const env = { ...process.env, DBOS_SYSTEM_DATABASE_URL: "postgres://127.0.0.1:1/db?user=x&password=qwerty123" };
    const { code, stderr } = await prosec(["runs"], cwd, env);
    expect(code).toBe(EXIT.network);
    expect(stderr).toContain("cannot reach the database at postgres://127.0.0.1:1/db?user=x&password=***");
    expect(stderr).not.toContain("qwerty123");
  });

  it("DBOS tables of another shape ask for prosec migrate", async () => {
    const database = await freshDatabase("wrong_shape");
    await withDatabase(database, (client) =>
      client.query("CREATE SCHEMA dbos; CREATE TABLE dbos.workflow_status (workflow_uuid text PRIMARY KEY)"),
    );
    const { code, stderr } = await prosec(["runs"], cwd, { ...process.env, DBOS_SYSTEM_DATABASE_URL: database });
    expect([code, stderr]).toEqual([
      EXIT.runStateUnusable,
      "prosec: the database's DBOS tables are not the ones this prosec expects: run `prosec migrate`\n",
    ]);
  });
});
