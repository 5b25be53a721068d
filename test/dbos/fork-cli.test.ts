/**
 * `prosec run --resume ID --from LINE` of a DBOS run, against a real PostgreSQL and a worker: DBOS's
 * fork copies the checkpoints before the first one at or after LINE into a new run, whose branches
 * finished before it are reused, so only what comes at or after LINE asks the model again. The run
 * forked keeps its status and checkpoints.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  prosec,
  result,
  startWorker,
  stopChildren,
  stopped,
  submit,
  withDatabase,
  type RunningWorker,
} from "../support/dbos.js";
import { askedText, reply, type FakeRequest, type FakeServer } from "../support/fake-anthropic.js";
import { freshDatabase } from "../support/postgres.js";
import { temporaryFolder } from "../support/temp.js";

const PROGRAM = `input topic: "What to write about"

let outline = session "Outline {topic}"

parallel:
  facts = session "Gather facts on {topic}"
  quotes = session "Gather quotes on {topic}"

output summary = session "Summarise {topic}"
  context: { outline, facts, quotes }
`;
const SUMMARY_LINE = 9;
const QUOTES_LINE = 7;

function model(request: FakeRequest) {
  const asked = askedText(request).trim().split("\n")[0]!;
  return reply.text(`on it: ${asked}`, { usage: { input_tokens: 100_000, output_tokens: 10_000 } });
}

let server: FakeServer;
let database = "";
let cwd = "";
let env: NodeJS.ProcessEnv = {};
let worker: RunningWorker;

const asked = (prompt: string) => server.requests.filter((request) => askedText(request).startsWith(prompt)).length;

/** The run's workflows' statuses and checkpoints, as the database holds them. */
function recorded(runId: string): Promise<unknown> {
  return withDatabase(database, async (client) => {
    const statuses = await client.query(
      "SELECT workflow_uuid, status FROM dbos.workflow_status WHERE workflow_uuid = $1 OR workflow_uuid LIKE $2 ORDER BY workflow_uuid",
      [runId, `${runId}/%`],
    );
    const steps = await client.query(
      "SELECT workflow_uuid, function_id, function_name, output, child_workflow_id FROM dbos.operation_outputs WHERE workflow_uuid = $1 OR workflow_uuid LIKE $2 ORDER BY workflow_uuid, function_id",
      [runId, `${runId}/%`],
    );
    return { statuses: statuses.rows, steps: steps.rows };
  });
}

beforeAll(async () => {
  server = await fakeModel({ respond: model });
  database = await freshDatabase("fork_cli");
  env = environment(database, server);
  cwd = temporaryFolder("prosec-dbos-fork-");
  writeFileSync(join(cwd, "report.prose"), PROGRAM);
  worker = await startWorker("w1", cwd, env);
  await submit(cwd, env, "tea", "original");
  await result(cwd, env, "original");
}, 60_000);

afterAll(async () => {
  if (worker !== undefined) await stopped(worker);
  await stopChildren();
});

describe("forking a DBOS run from a line", () => {
  it("runs the third session only, in a new run, and leaves the original as it was", async () => {
    const before = await recorded("original");
    const outputs = await result(cwd, env, "original");
    expect([asked("Outline"), asked("Gather facts"), asked("Gather quotes"), asked("Summarise")]).toEqual([1, 1, 1, 1]);

    const fork = await prosec(
      ["run", "report.prose", "--resume", "original", "--from", String(SUMMARY_LINE), "--json"],
      cwd,
      env,
    );
    expect(fork.code, fork.stderr).toBe(EXIT.ok);
    const forkId = /forked run original into (\S+):/.exec(fork.stderr)?.[1];
    expect(forkId, fork.stderr).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(fork.stderr).toContain(`reusing the 3 steps it recorded before line ${SUMMARY_LINE}`);
    const last = JSON.parse(fork.stdout.trim().split("\n").at(-1)!) as { outputs: unknown };
    expect(last.outputs).toEqual(outputs);
    expect(last.outputs).toEqual({ summary: "on it: Summarise tea" });
    // The branches were reused (no new child workflows), and only the summary asked again.
    expect([asked("Outline"), asked("Gather facts"), asked("Gather quotes"), asked("Summarise")]).toEqual([1, 1, 1, 2]);
    const forked = (await recorded(forkId!)) as { statuses: unknown[] };
    expect(forked.statuses).toEqual([{ workflow_uuid: forkId, status: "SUCCESS" }]);

    expect(await recorded("original")).toEqual(before);
    // The fork costs what it asked again: the steps DBOS copied were paid for by the original.
    const listed = await prosec(["runs", "--format", "json"], cwd, env);
    const cost = (id: string) =>
      (JSON.parse(listed.stdout) as { runId: string; cost: number }[]).find((run) => run.runId === id)?.cost;
    expect(cost("original")).toBeGreaterThan(0);
    expect(cost(forkId!)).toBeCloseTo(cost("original")! / 4, 6);
  }, 30_000);

  it("from a line inside a parallel block: reuses the branches before it, runs that one and the rest", async () => {
    const counts = [asked("Outline"), asked("Gather facts"), asked("Gather quotes"), asked("Summarise")];
    const fork = await prosec(["run", "--resume", "original", "--from", String(QUOTES_LINE), "--json"], cwd, env);
    expect(fork.code, fork.stderr).toBe(EXIT.ok);
    expect(fork.stderr).toContain(`reusing the 2 steps it recorded before line ${QUOTES_LINE}`);
    expect(JSON.parse(fork.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      outputs: { summary: "on it: Summarise tea" },
    });
    expect([asked("Outline"), asked("Gather facts"), asked("Gather quotes"), asked("Summarise")]).toEqual([
      counts[0],
      counts[1],
      counts[2]! + 1,
      counts[3]! + 1,
    ]);
  }, 30_000);

  it("a line past the last recorded step is a usage error; so is a changed program", async () => {
    const requests = server.requests.length;
    const past = await prosec(["run", "--resume", "original", "--from", "99"], cwd, env);
    expect(past.code).toBe(EXIT.usage);
    expect(past.stderr).toContain("--from 99: run original recorded no step at or after line 99");

    writeFileSync(join(cwd, "changed.prose"), PROGRAM.replace("Summarise", "Sum up"));
    const changed = await prosec(
      ["run", "changed.prose", "--resume", "original", "--from", String(SUMMARY_LINE)],
      cwd,
      env,
    );
    expect(changed.code).toBe(EXIT.usage);
    expect(changed.stderr).toContain("editing the program of a DBOS run is not supported");
    expect(server.requests.length).toBe(requests);
  }, 30_000);
});
