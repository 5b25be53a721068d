/**
 * The RunStore of a DBOS database (src/runs/dbos-runs.ts) against the table every store answers
 * (test/support/run-store-cases.ts): runs submitted to a worker, one answered to its end, two left
 * waiting for a mid-program input.
 */
import { afterAll, beforeAll, describe, expect } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { DbosRuns } from "../../src/runs/dbos-runs.js";
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
  submit,
  waitFor,
  type RunningWorker,
} from "../support/dbos.js";
import { freshDatabase } from "../support/postgres.js";
import { runStoreCases, type StoreFixture } from "../support/run-store-cases.js";

/** A session, then an input asked mid-program, then a session that uses it. */
const PROGRAM = `input topic: "What the talk is about"
let draft = session "Suggest a talk on {topic}"
input audience: "Who is the talk for?"
output talk = session "Outline {draft} for {audience}"
`;

let fixture: StoreFixture;
let worker: RunningWorker | undefined;

beforeAll(async () => {
  const server = await fakeModel({ respond: reportModel });
  const database = await freshDatabase("run_store");
  const cwd = folder(PROGRAM);
  const env = environment(database, server);
  worker = await startWorker("w1", cwd, env);
  const status = async (id: string): Promise<string> =>
    (JSON.parse((await prosec(["status", id, "--json"], cwd, env)).stdout) as { status: string }).status;
  await submit(cwd, env, "tides", "store-done");
  await waitFor(async () => (await status("store-done")) === "WAITING", "the first run waiting");
  expect((await prosec(["answer", "store-done", "audience=sailors"], cwd, env)).code).toBe(EXIT.ok);
  await result(cwd, env, "store-done");
  await submit(cwd, env, "moons", "store-wait-1");
  await submit(cwd, env, "stars", "store-wait-2");
  await waitFor(
    async () => (await Promise.all([status("store-wait-1"), status("store-wait-2")])).every((s) => s === "WAITING"),
    "two runs waiting",
  );
  fixture = {
    store: new DbosRuns(database),
    complete: "store-done",
    toAnswer: "store-wait-1",
    toCancel: "store-wait-2",
    input: "audience",
  };
}, 180_000);

afterAll(async () => {
  if (worker !== undefined) await stopped(worker);
  await stopChildren();
});

describe("DBOS runs", () => {
  runStoreCases(() => fixture);
});
