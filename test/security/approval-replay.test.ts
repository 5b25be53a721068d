/**
 * A person's yes to a tool call runs that call once. A session's `retry:` attempt starts its
 * conversation over, so the duplicate-id check of one attempt does not see the calls of the one
 * before: an endpoint that gave the approved call's id again, with the same input, had the recorded
 * yes run it a second time, unasked. The answer is keyed by the attempt too: the next attempt's call
 * is put to the person again.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WaitingForInput } from "../../runtime/errors.js";
import type { Runtime } from "../../runtime/index.js";
import { readWaiting } from "../../runtime/durable/run-control.js";
import { decideFileRun } from "../../src/runs/folder-control.js";
import { reply, type FakeReply } from "../support/fake-anthropic.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { at, failingRun, runAgainst, temporaryFolder } from "../runtime/helpers.js";

const serve = fakeServersPerTest();
const RUN_ID = "20260101-000000-0000b7";

/** The call a person approves, with an id the endpoint gives it every time. */
const deploy: FakeReply = {
  kind: "message",
  stopReason: "tool_use",
  content: [
    { type: "tool_use", id: "toolu_fixed", name: "run_command", input: { command: "sh -c 'echo ran >> count'" } },
  ],
};

/** A model that gives these replies in turn. */
const scripted =
  (...replies: FakeReply[]) =>
  (): FakeReply =>
    replies.shift() ?? reply.error(500, { shouldRetry: false, message: "script exhausted" });

const session = (rt: Runtime): Promise<string> =>
  rt.session({
    at: at(3),
    binding: "x",
    prompt: "Deploy",
    agent: { name: "ops", permissions: { bash: "prompt" }, retry: 1, backoff: "none" },
  });

describe("an approved call made again by the next retry: attempt", () => {
  it("is put to the person again, not run on the first attempt's yes", async () => {
    const cwd = temporaryFolder("prosec-approval-replay-");
    const runDir = join(cwd, ".prose", "runs", RUN_ID);
    const options = { cwd, runDir, runId: RUN_ID, sandbox: "off" as const, retryDelayMs: 0 };

    const asked = await serve(scripted(deploy));
    expect((await failingRun(asked, session, options)).error).toBeInstanceOf(WaitingForInput);
    decideFileRun(runDir, RUN_ID, [], false, "yes");

    // The approved call runs; the attempt then fails, and the retry makes the same call, same id.
    const resumed = await serve(scripted(reply.error(400, { message: "after the call" }), deploy));
    const { error } = await failingRun(resumed, session, { ...options, resume: true });
    expect(error).toBeInstanceOf(WaitingForInput);
    expect(readFileSync(join(cwd, "count"), "utf8")).toBe("ran\n");
    const [question] = readWaiting(runDir)!.questions;
    expect(question!.prompt).toContain("sh -c 'echo ran >> count'");

    // A second yes runs it a second time.
    decideFileRun(runDir, RUN_ID, [], false, "yes");
    const last = await serve(scripted(reply.text("deployed")));
    const { result } = await runAgainst(last, session, { ...options, resume: true });
    expect(result).toBe("deployed");
    expect(readFileSync(join(cwd, "count"), "utf8")).toBe("ran\nran\n");
    expect(existsSync(join(runDir, "waiting.json"))).toBe(false);
  });
});
