/**
 * `prosec submit FILE --inputs runs.jsonl`: many runs from one process, the program compiled once.
 * Every line is checked before any run is submitted.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  folder,
  prosec,
  reportModel,
  result,
  startWorker,
  stopChildren,
  stopped,
  uninterrupted,
  withDatabase,
} from "../support/dbos.js";
import { freshDatabase } from "../support/postgres.js";

afterEach(stopChildren);

const TOPICS = ["tea", "rivers", "owls"];

describe("prosec submit --inputs", () => {
  it("submits one run a line, numbered by line; a bad line submits nothing", { timeout: 180_000 }, async () => {
    const cwd = folder();
    const expected = await Promise.all(TOPICS.map((topic) => uninterrupted(cwd, topic)));
    const server = await fakeModel({ respond: reportModel });
    const database = await freshDatabase("many");
    const env = environment(database, server);

    const bad = [
      [
        '{"topic": "tea"}\n{"subject": "owls"}\n',
        'runs.jsonl:2: report.prose has no input "subject" (its inputs: topic)',
      ],
      [
        '{"topic": "tea"}\n\n{}\n',
        "runs.jsonl:3: missing input: --input topic=... (What to write about) (give it on the line, or to every run with --input)",
      ],
      ['{"topic": "tea"}\n{"topic": \n', "runs.jsonl:2: not JSON"],
      ['["tea"]\n', 'runs.jsonl:1: write each run as an object of its inputs, e.g. {"topic": "tea"}'],
    ] as const;
    for (const [lines, message] of bad) {
      writeFileSync(join(cwd, "runs.jsonl"), lines);
      const refused = await prosec(["submit", "report.prose", "--inputs", "runs.jsonl"], cwd, env);
      expect(refused.code).toBe(EXIT.usage);
      expect(refused.stderr).toContain(`prosec: ${message}`);
      expect(refused.stdout).toBe("");
    }
    // Nothing was submitted (the database has no DBOS tables yet, or no runs in them).
    const submittedSoFar = await withDatabase(database, async (client) => {
      const { rows } = await client.query<{ tables: string }>(
        "SELECT count(*) AS tables FROM information_schema.tables WHERE table_schema = 'dbos' AND table_name = 'workflow_status'",
      );
      if (rows[0]!.tables === "0") return 0;
      return Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM dbos.workflow_status")).rows[0]!.n);
    });
    expect(submittedSoFar).toBe(0);

    writeFileSync(join(cwd, "runs.jsonl"), TOPICS.map((topic) => JSON.stringify({ topic })).join("\n\n") + "\n");
    const submitted = await prosec(["submit", "report.prose", "--inputs", "runs.jsonl", "--id", "batch"], cwd, env);
    expect([submitted.code, submitted.stderr, submitted.stdout]).toEqual([EXIT.ok, "", "batch-1\nbatch-3\nbatch-5\n"]);
    const worker = await startWorker("w1", cwd, env, { concurrency: 3 });
    const outputs = await Promise.all(["batch-1", "batch-3", "batch-5"].map((id) => result(cwd, env, id)));
    expect(outputs).toEqual(expected);
    // Submitting the same ids again returns the runs already there.
    const again = await prosec(["submit", "report.prose", "--inputs", "runs.jsonl", "--id", "batch"], cwd, env);
    expect(again.stdout).toBe("batch-1\nbatch-3\nbatch-5\n");
    expect(await stopped(worker)).toBe(EXIT.ok);
  });
});
