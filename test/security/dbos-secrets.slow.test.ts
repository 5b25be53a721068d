/**
 * The API key never reaches the DBOS tables. DBOS writes a failed step's error whole (its message,
 * stack and own properties, an API error's body among them) and a model server may echo the
 * request's key in that body, as a misconfigured proxy does: "invalid x-api-key: sk-ant-...". The run
 * fails, the worker and `prosec result` say why, and no row of any table in the database holds the key.
 */
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  folder,
  prosec,
  startWorker,
  stopChildren,
  submit,
  TEST_API_KEY,
  withDatabase,
} from "../support/dbos.js";
import type { FakeReply, FakeRequest } from "../support/fake-anthropic.js";
import { freshDatabase } from "../support/postgres.js";

afterEach(stopChildren);

const PROGRAM = `input topic: "What to say"

output said = session "Say {topic}"
`;

/** A 401 whose message quotes every header of the request, the key's among them. */
function echoingTheKey(request: FakeRequest): FakeReply {
  const message = `invalid credentials: ${JSON.stringify(request.headers)}`;
  return { kind: "error", status: 401, body: { type: "error", error: { type: "authentication_error", message } } };
}

/** Every row of every table of the database's dbos schema, as text. */
function everyRow(database: string): Promise<string> {
  return withDatabase(database, async (client) => {
    const { rows: tables } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'dbos'",
    );
    const texts: string[] = [];
    for (const { table_name } of tables) {
      const { rows } = await client.query(`SELECT * FROM dbos."${table_name}"`);
      texts.push(JSON.stringify(rows));
    }
    return texts.join("\n");
  });
}

describe("the API key and the DBOS tables", () => {
  it(
    "a model server that echoes the key in its error: the failed turn is stored without it",
    { timeout: 120_000 },
    async () => {
      const database = await freshDatabase("secrets");
      const server = await fakeModel({ respond: echoingTheKey });
      const cwd = folder(PROGRAM);
      const env = environment(database, server);
      const worker = await startWorker("w-secrets", cwd, env);
      await submit(cwd, env, "tea", "run-secrets");
      const outcome = await prosec(["result", "run-secrets", "--json", "--timeout", "60"], cwd, env);
      expect(outcome.code).toBe(EXIT.failed);
      // The request did carry the key, so the answer echoed it.
      expect(JSON.stringify(server.requests.map((request) => request.headers))).toContain(TEST_API_KEY);
      expect(outcome.stderr).toContain("invalid credentials");
      expect(outcome.stderr).toContain("[redacted]");

      const stored = await everyRow(database);
      // The failed turn is stored, as the API error it was (its status and body), without the key.
      expect(stored).toContain("turn");
      expect(stored).toContain("invalid credentials");
      expect(stored).toContain('\\"status\\":401');
      expect(stored).not.toContain(TEST_API_KEY);
      expect(worker.log()).not.toContain(TEST_API_KEY);
      expect(outcome.stdout + outcome.stderr).not.toContain(TEST_API_KEY);
    },
  );
});
