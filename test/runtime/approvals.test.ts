/**
 * Approvals that survive a restart, on file runs: an explicit `prompt` with no `onPermission` stops
 * the run waiting (a WaitingForInput whose question is the call), the call pending in the journal;
 * `prosec approve` (decideFileRun) answers it, and the resumed run runs the approved call once; a
 * denial reaches the model as a tool error with its reason. The implicit `bash:` default still asks
 * no one.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WaitingForInput } from "../../runtime/errors.js";
import type { Permissions, Runtime } from "../../runtime/index.js";
import { readWaiting } from "../../runtime/durable/run-control.js";
import { decideFileRun } from "../../src/runs/folder-control.js";
import { reply, type FakeReply, type FakeRequest, turnOf } from "../support/fake-anthropic.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { at, failingRun, runAgainst, temporaryFolder } from "./helpers.js";

const serve = fakeServersPerTest();

const script = (request: FakeRequest): FakeReply =>
  turnOf(request) === 0
    ? reply.toolUse([{ name: "run_command", input: { command: "mkdir made-once" } }])
    : reply.text(`result: ${JSON.stringify(request.body?.messages.at(-1)?.content)}`);

const session =
  (permissions: Permissions) =>
  (rt: Runtime): Promise<string> =>
    rt.session({ at: at(3), binding: "x", prompt: "Make it", agent: { name: "maker", permissions } });

const RUN_ID = "20260101-000000-0000a4";

async function waitingRun(permissions: Permissions): Promise<{ cwd: string; runDir: string }> {
  const cwd = temporaryFolder("prosec-approval-");
  const runDir = join(cwd, ".prose", "runs", RUN_ID);
  const first = await serve(script);
  const { error } = await failingRun(first, session(permissions), { cwd, runDir, runId: RUN_ID, sandbox: "off" });
  expect(error).toBeInstanceOf(WaitingForInput);
  expect(error.name).toBe("WaitingForApproval");
  expect(existsSync(join(cwd, "made-once"))).toBe(false);
  return { cwd, runDir };
}

describe("approvals that survive a restart (file runs)", () => {
  it("stops waiting with the call pending; approve, and the resumed run runs it once", async () => {
    const { cwd, runDir } = await waitingRun({ bash: "prompt" });
    const [question] = readWaiting(runDir)!.questions;
    expect(question).toMatchObject({ prompt: "Agent maker asks to use run_command: mkdir made-once", at: at(3) });
    expect(question!.name).toMatch(/^approve_toolu_/);
    expect(() => decideFileRun(runDir, RUN_ID, ["nothing"], false, "yes")).toThrow(
      /not waiting for an approval of nothing/,
    );
    expect(decideFileRun(runDir, RUN_ID, [], false, "yes")[0]).toContain(`--resume ${RUN_ID}`);

    const second = await serve(script);
    const { result } = await runAgainst(second, session({ bash: "prompt" }), {
      cwd,
      runDir,
      runId: RUN_ID,
      resume: true,
      sandbox: "off",
    });
    // The model was not asked its first turn again; the call ran once, and succeeded.
    expect(second.requests.map(turnOf)).toEqual([1]);
    expect(result).toContain("exit code 0");
    expect(existsSync(join(cwd, "made-once"))).toBe(true);
    const journal = readFileSync(join(runDir, "journal.jsonl"), "utf8");
    // Started twice (asked, then run), pending in between, finished once.
    expect(journal.match(/"type":"(tool-started|approval-pending|tool-finished)"/g)).toEqual([
      '"type":"tool-started"',
      '"type":"approval-pending"',
      '"type":"tool-started"',
      '"type":"tool-finished"',
    ]);
  });

  it("deny: the model sees a tool error with the reason, and nothing runs", async () => {
    const { cwd, runDir } = await waitingRun({ bash: "prompt" });
    decideFileRun(runDir, RUN_ID, [], false, "no: not on a Friday");
    const second = await serve(script);
    const { result } = await runAgainst(second, session({ bash: "prompt" }), {
      cwd,
      runDir,
      runId: RUN_ID,
      resume: true,
      sandbox: "off",
    });
    expect(result).toContain("A person refused run_command: mkdir made-once (not on a Friday)");
    expect(existsSync(join(cwd, "made-once"))).toBe(false);
  });

  it("an explicit write: prompt waits too; the implicit bash default asks no one (run_command refused)", async () => {
    const cwd = temporaryFolder("prosec-approval-");
    const runDir = join(cwd, ".prose", "runs", RUN_ID);
    const server = await serve(script);
    // `read: prompt` (ask: ["read"]) offers run_command (someone can be asked), but the implicit bash default refuses it.
    const { result } = await runAgainst(server, session({ ask: ["read"] }), {
      cwd,
      runDir,
      runId: RUN_ID,
      sandbox: "off",
    });
    expect(result).toContain("is_error");
    expect(existsSync(join(cwd, "made-once"))).toBe(false);
    expect(readWaiting(runDir)).toBeUndefined();

    const writer = await serve((request) =>
      turnOf(request) === 0
        ? reply.toolUse([{ name: "write_file", input: { path: "a.txt", content: "x" } }])
        : reply.text("ok"),
    );
    const other = temporaryFolder("prosec-approval-");
    const { error } = await failingRun(writer, session({ ask: ["write"] }), {
      cwd: other,
      runDir: join(other, ".prose", "runs", RUN_ID),
      runId: RUN_ID,
    });
    expect(error.message).toContain("waiting for input");
    expect(existsSync(join(other, "a.txt"))).toBe(false);
  });

  it("in an app, onPermission still decides in-process", async () => {
    const cwd = temporaryFolder("prosec-approval-");
    const runDir = join(cwd, ".prose", "runs", RUN_ID);
    const asked: string[] = [];
    const { result } = await runAgainst(await serve(script), session({ bash: "prompt" }), {
      cwd,
      runDir,
      runId: RUN_ID,
      sandbox: "off",
      onPermission: (request) => {
        asked.push(request.detail);
        return true;
      },
    });
    expect(asked).toEqual(["mkdir made-once"]);
    expect(result).toContain("exit code 0");
  });

  // A hostile model (or endpoint) answers its approved call's id again, with another action: the
  // person's yes was for `mkdir made-once`, so `mkdir pwned` never runs on that yes. A call whose id
  // the conversation has already is not run at all (steps/tool-ids.ts), nor put to the person.
  it("a yes is for the action the person saw: a later call reusing its id is not run on it", async () => {
    const sameId = (command: string): FakeReply => ({
      kind: "message",
      content: [{ type: "tool_use", id: "toolu_reused", name: "run_command", input: { command } }],
      stopReason: "tool_use",
    });
    const reuse = (request: FakeRequest): FakeReply =>
      turnOf(request) === 0
        ? sameId("mkdir made-once")
        : turnOf(request) === 1
          ? sameId("mkdir pwned")
          : reply.text("ok");
    const cwd = temporaryFolder("prosec-approval-");
    const runDir = join(cwd, ".prose", "runs", RUN_ID);
    const options = { cwd, runDir, runId: RUN_ID, sandbox: "off" as const };
    const first = await failingRun(await serve(reuse), session({ bash: "prompt" }), options);
    expect(first.error.name).toBe("WaitingForApproval");
    decideFileRun(runDir, RUN_ID, [], false, "yes");

    const server = await serve(reuse);
    const second = await runAgainst(server, session({ bash: "prompt" }), { ...options, resume: true });
    expect(second.result).toBe("ok");
    expect(existsSync(join(cwd, "made-once"))).toBe(true);
    expect(existsSync(join(cwd, "pwned"))).toBe(false);
    expect(readWaiting(runDir)?.questions ?? []).toEqual([]);
    const refused = server.requests.at(-1)!.body!.messages.at(-1)!.content as Array<Record<string, unknown>>;
    expect(refused).toEqual([expect.objectContaining({ tool_use_id: "toolu_reused_2", is_error: true })]);
    expect(String(refused[0]!["content"])).toContain("its id toolu_reused was used already");
  });
});
