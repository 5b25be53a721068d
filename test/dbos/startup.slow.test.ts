/**
 * Workers started together on an empty database: one creates it, one migrates it at a time (under
 * one advisory lock in the database itself), and both serve. Raced ten times: the failure this
 * guards against (DBOS's migrations run twice at once: "deadlock detected") came in 3 tries of 7, so
 * ten tries miss it once in about 270 runs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { environment, fakeModel, folder, startWorker, stopChildren, stopped } from "../support/dbos.js";

afterEach(stopChildren);

const TRIES = 10;

describe("workers started at once on an empty database", () => {
  it(`create and migrate it once between them (${TRIES} tries)`, { timeout: 900_000 }, async () => {
    const server = process.env["PROSEC_TEST_DATABASE_URL"]!;
    const model = await fakeModel();
    const cwd = folder();
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const database = new URL(server);
      database.pathname = `/prosec_empty_${process.pid}_${Date.now().toString(36)}_${attempt}`;
      const env = environment(database.toString(), model);
      const workers = await Promise.all(["w1", "w2"].map((id) => startWorker(id, cwd, env)));
      for (const worker of workers) expect(worker.log()).not.toMatch(/error|deadlock/i);
      expect(await Promise.all(workers.map((worker) => stopped(worker)))).toEqual([EXIT.ok, EXIT.ok]);
    }
  });
});
