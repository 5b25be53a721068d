/**
 * Runs on DBOS across real worker processes sharing one queue and one PostgreSQL database, with
 * the real SDK against the fake Messages API. One worker is killed with SIGKILL in the middle of
 * the runs; the other adopts its runs and finishes them, and no step that had finished is asked of
 * the model again.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  checkpointedIdentities,
  environment,
  fakeModel,
  folder,
  heldReportModel,
  killed,
  mostAsked,
  prosec,
  REPORT_PROGRAM,
  reportModel as answer,
  repeatedAfter,
  result,
  startWorker,
  stopChildren,
  stopped,
  submit,
  uninterrupted,
  waitFor,
  waitForRunsUnderWay,
} from "../support/dbos.js";
import { lastUserText, reply, type FakeRequest, type FakeReply } from "../support/fake-anthropic.js";
import { identity } from "../support/deterministic-model.js";
import { freshDatabase } from "../support/postgres.js";
import { temporaryFolder } from "../support/temp.js";

afterEach(stopChildren);

const TOPICS = ["tea", "rivers", "bridges", "owls", "clocks", "maps"];

describe("prosec worker on DBOS", () => {
  it("runs a submitted program and reports its status and result", { timeout: 120_000 }, async () => {
    const server = await fakeModel({ respond: answer });
    const database = await freshDatabase("smoke");
    const cwd = folder();
    const env = environment(database, server);
    const worker = await startWorker("w1", cwd, env);
    await submit(cwd, env, "tea", "run-tea");
    const outputs = (await result(cwd, env, "run-tea")) as { report: string };
    expect(outputs.report).toMatch(/^\[[0-9a-f]{12}\] re: Assemble the report on tea/);
    expect(worker.log()).toContain("run run-tea: running\nrun run-tea: finished\n");
    const status = await prosec(["status", "run-tea", "--json"], cwd, env);
    expect(JSON.parse(status.stdout)).toMatchObject({
      runId: "run-tea",
      status: "SUCCESS",
      worker: "w1",
      branches: { total: 4, finished: 4 },
    });
    // 2 + 1 + (3 judgments, 2 revisions: round 1 is final after one more) ... every request is asked once.
    const identities = server.requests.map((request) => identity(request));
    expect(new Set(identities).size).toBe(identities.length);
    const unknown = await prosec(["status", "no-such-run"], cwd, env);
    expect([unknown.code, unknown.stderr]).toEqual([
      EXIT.usage,
      "prosec: there is no run no-such-run in this database\n",
    ]);
    const unconfigured = await prosec(["status", "run-tea"], cwd, { ...env, DBOS_SYSTEM_DATABASE_URL: "" });
    expect(unconfigured.code).toBe(EXIT.usage);
    expect(unconfigured.stderr).toMatch(/^prosec: set DBOS_SYSTEM_DATABASE_URL to the PostgreSQL database/);
    const unreachable = await prosec(["status", "run-tea"], cwd, {
      ...env,
      DBOS_SYSTEM_DATABASE_URL: "postgresql://postgres:hunter22@127.0.0.1:1/prosec",
    });
    expect(unreachable.code).toBe(EXIT.network);
    expect(unreachable.stderr).toMatch(
      /^prosec: cannot reach the database at postgresql:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/prosec \(DBOS_SYSTEM_DATABASE_URL\): connect ECONNREFUSED/,
    );
    expect(unreachable.stderr).not.toContain("hunter22");
  });

  it(
    "keeps a run waiting for a mid-program input in the database: status WAITING, prosec answer continues it, prosec cancel ends it, (timeout: N) ends the wait; a tool the agent lacks is refused to the model (approvals: approvals.test.ts)",
    { timeout: 120_000 },
    async () => {
      // The clerk reads a file under read: deny: the tool is not offered, and a call of it is refused.
      const respond = (request: FakeRequest): FakeReply => {
        const messages = request.body?.messages ?? [];
        if (lastUserText(request).startsWith("Check the notes") && messages.length === 1)
          return reply.toolUse([{ name: "read_file", input: { path: "notes.md" } }]);
        return answer(request);
      };
      const server = await fakeModel({ respond });
      const database = await freshDatabase("input");
      const cwd = folder(`input topic: "What to write about"
agent clerk:
  permissions:
    read: deny
let draft = session: clerk
  prompt: "Check the notes on {topic}"
input approval: "Who approves the draft on {topic}?"
let note = try:
  input second: "A second opinion on {topic}?" (timeout: 1)
catch:
  "no second opinion"
output report = session "Final draft on {topic}, approved by {approval}, {note}"
  context: draft
`);
      const env = environment(database, server);
      await startWorker("w1", cwd, env);
      const status = async (id: string): Promise<{ status: string; waitingFor: unknown[] }> =>
        JSON.parse((await prosec(["status", id, "--json"], cwd, env)).stdout);

      // run-ahead is answered at submit and never waits; run-owls is answered, run-maps cancelled, while they wait.
      await Promise.all([
        submit(cwd, env, "tea", "run-ahead", "approval=Ada"),
        submit(cwd, env, "owls", "run-owls"),
        submit(cwd, env, "maps", "run-maps"),
      ]);
      await waitFor(
        async () =>
          (await Promise.all([status("run-owls"), status("run-maps")])).every((run) => run.status === "WAITING"),
        "two runs waiting",
      );
      const owls = await prosec(["status", "run-owls"], cwd, env);
      const [ahead, answered, cancelled] = await Promise.all([
        result(cwd, env, "run-ahead"),
        prosec(["answer", "run-owls", "approval=Grace"], cwd, env),
        prosec(["cancel", "run-maps"], cwd, env),
      ]);
      // The second opinion is asked with (timeout: 1): nobody answers, the input fails, and the catch: goes on.
      expect((ahead as { report: string }).report).toMatch(
        /re: Final draft on tea, approved by Ada, no second opinion$/,
      );
      expect(owls.stdout).toContain("status   WAITING\n");
      expect(owls.stdout).toContain(
        'waiting  for input "approval" (Who approves the draft on owls?) at report.prose:7:1: prosec answer run-owls approval=...',
      );
      expect([answered.code, answered.stdout]).toEqual([
        0,
        'answered "approval" for run run-owls; its worker goes on\n',
      ]);
      expect([cancelled.code, cancelled.stdout]).toEqual([0, "run run-maps cancelled\n"]);
      const [answeredRun, cancelledRun] = await Promise.all([result(cwd, env, "run-owls"), status("run-maps")]);
      expect((answeredRun as { report: string }).report).toMatch(
        /re: Final draft on owls, approved by Grace, no second opinion$/,
      );
      expect(cancelledRun).toMatchObject({ status: "CANCELLED", waitingFor: [] });
      expect(server.requests.filter((request) => lastUserText(request).startsWith("Final draft on maps"))).toEqual([]);
      const refusals = server.requests.flatMap((request) => {
        const content = request.body?.messages.at(-1)?.content;
        return typeof content === "string" || content === undefined
          ? []
          : content.filter((block) => block["type"] === "tool_result");
      });
      expect(refusals).toHaveLength(3);
      for (const refusal of refusals)
        expect(refusal).toMatchObject({
          is_error: true,
          content: expect.stringMatching(/^The tool read_file is not available to this agent\./),
        });
    },
  );

  it(
    "exit codes of every DBOS command; a run no worker serves: result --timeout returns pending, status says which worker it waits for",
    { timeout: 120_000 },
    async () => {
      const database = await freshDatabase("waiting");
      const failing = await fakeModel({ respond: () => reply.error(400, { message: "scripted failure" }) });
      const env = environment(database, failing);
      const cwd = folder();
      const changed = temporaryFolder("prosec-dbos-");
      writeFileSync(
        join(changed, "report.prose"),
        REPORT_PROGRAM.replace("Assemble the report", "Assemble the final report"),
      );

      const migrated = await prosec(["migrate"], cwd, env);
      expect([migrated.code, migrated.stderr]).toEqual([EXIT.ok, "the system database is ready\n"]);
      await submit(cwd, env, "tea", "run-waiting");
      const pending = await prosec(["result", "run-waiting", "--timeout", "1", "--json"], cwd, env);
      expect(pending.code).toBe(EXIT.pending);
      expect(JSON.parse(pending.stdout)).toEqual({ type: "pending", runId: "run-waiting", status: "ENQUEUED" });
      expect(pending.stderr).toBe(
        "prosec: run run-waiting is still pending (ENQUEUED) after 1 s; see `prosec status run-waiting`\n",
      );
      const unserved = await prosec(["status", "run-waiting", "--json"], cwd, env);
      const version = (JSON.parse(unserved.stdout) as { version: string }).version;
      expect(JSON.parse(unserved.stdout)).toMatchObject({
        status: "ENQUEUED",
        workers: [],
        waiting: 'no worker serves queue "prosec": start `prosec worker <program> --queue prosec`',
      });

      // A worker of the changed program does not take the run; status says why.
      const other = await startWorker("w-new", changed, env);
      const otherVersion = /\(version (\S+)\)/.exec(other.log())![1]!;
      expect(otherVersion).not.toBe(version);
      const waiting = await prosec(["status", "run-waiting"], cwd, env);
      expect(waiting.code).toBe(EXIT.ok);
      expect(waiting.stdout).toContain(
        `\nwaiting  for a worker of version ${version}: the workers on queue "prosec" serve other versions (w-new: ${otherVersion}). The run was submitted with another version of the program (or of prosec); start a worker of that one to run it\n`,
      );
      expect(await stopped(other)).toBe(EXIT.ok);

      // A worker of the program it was submitted with runs it; the model refuses, so the run fails.
      const same = await startWorker("w-old", cwd, env);
      const failed = await prosec(["result", "run-waiting", "--timeout", "60"], cwd, env);
      expect(failed.code).toBe(EXIT.failed);
      expect(failed.stderr).toMatch(/^prosec: run run-waiting failed: .*scripted failure/);
      expect(await stopped(same)).toBe(EXIT.ok);
    },
  );

  it(
    "finishes every run when one of two workers is killed: the other adopts its runs and asks no finished step again",
    { timeout: 240_000 },
    async () => {
      const cwd = folder();
      const expected = await Promise.all(TOPICS.map((topic) => uninterrupted(cwd, topic)));
      const held = heldReportModel();
      const server = await fakeModel({ respond: held.respond, latencyMs: 150 });
      const database = await freshDatabase("adopt");
      const env = environment(database, server);
      const workers = new Map(
        await Promise.all(["w1", "w2"].map(async (id) => [id, await startWorker(id, cwd, env)] as const)),
      );
      for (const topic of TOPICS) await submit(cwd, env, topic, `run-${topic}`);

      const victim = await waitForRunsUnderWay(database, ["w1", "w2"]);
      const survivor = victim === "w1" ? "w2" : "w1";
      await killed(workers.get(victim)!);
      const killedAt = server.requests.length;
      const finished = await checkpointedIdentities(database);
      held.open();

      const outputs = await Promise.all(TOPICS.map((topic) => result(cwd, env, `run-${topic}`)));
      expect(outputs).toEqual(expected);
      expect(workers.get(survivor)!.log()).toMatch(
        new RegExp(`worker ${victim} was silent for 2000 ms: [1-9]\\d* unfinished runs? put back on the queue`),
      );
      expect(finished.size).toBeGreaterThan(0);
      expect(repeatedAfter(server, killedAt, finished)).toEqual([]);
      // A step in flight at the kill may be asked twice; nothing is asked three times.
      expect(mostAsked(server)).toBeLessThanOrEqual(2);
    },
  );

  it("recovers their own runs when both workers are killed and started again", { timeout: 240_000 }, async () => {
    const cwd = folder();
    const expected = await Promise.all(TOPICS.slice(0, 4).map((topic) => uninterrupted(cwd, topic)));
    const held = heldReportModel();
    const server = await fakeModel({ respond: held.respond, latencyMs: 150 });
    const database = await freshDatabase("restart");
    const env = environment(database, server);
    const workers = await Promise.all([
      startWorker("w1", cwd, env, { adoptAfterSeconds: 600 }),
      startWorker("w2", cwd, env, { adoptAfterSeconds: 600 }),
    ]);
    for (const topic of TOPICS.slice(0, 4)) await submit(cwd, env, topic, `run-${topic}`);

    await waitForRunsUnderWay(database, ["w1", "w2"]);
    await Promise.all(workers.map((worker) => killed(worker)));
    const killedAt = server.requests.length;
    const finished = await checkpointedIdentities(database);
    held.open();

    const restarted = await Promise.all([
      startWorker("w1", cwd, env, { adoptAfterSeconds: 600 }),
      startWorker("w2", cwd, env, { adoptAfterSeconds: 600 }),
    ]);
    const outputs = await Promise.all(TOPICS.slice(0, 4).map((topic) => result(cwd, env, `run-${topic}`)));
    expect(outputs).toEqual(expected);
    expect(server.requests.length).toBeGreaterThan(killedAt);
    expect(repeatedAfter(server, killedAt, finished)).toEqual([]);
    for (const worker of restarted) expect(worker.log()).not.toMatch(/was silent/);
  });
});
