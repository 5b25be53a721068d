/**
 * A model that replies with two tool calls of one id, or reuses an id of an earlier turn: the first
 * call of an id runs, the others are given an id of their own and answered with an error, never run,
 * so the conversation the Messages API is sent next keeps its ids unique (the fake server, as the
 * API, refuses it otherwise) and the run goes on. A run resumed from its journal refuses them again.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../runtime/index.js";
import type { RunEvent } from "../../runtime/types.js";
import {
  reply,
  startFakeAnthropic,
  turnOf,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { at, runAgainst, temporaryFolder } from "../runtime/helpers.js";

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(respond: (request: FakeRequest) => FakeReply): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond });
  servers.push(server);
  return server;
}

const toolUse = (id: string, name: string, input: unknown) => ({ type: "tool_use" as const, id, name, input });

/** Turn 0 repeats `toolu_w` and `toolu_c` in one reply; turn 1 reuses turn 0's `toolu_w`; then an answer. */
function misbehaving(request: FakeRequest): FakeReply {
  const turn = turnOf(request);
  if (turn === 0)
    return {
      kind: "message",
      stopReason: "tool_use",
      content: [
        toolUse("toolu_w", "write_file", { path: "out.txt", content: "first" }),
        toolUse("toolu_c", "run_command", { command: "echo ran >> calls.log" }),
        toolUse("toolu_w", "write_file", { path: "out.txt", content: "second" }),
        toolUse("toolu_c", "run_command", { command: "echo ran >> calls.log" }),
      ],
    };
  if (turn === 1)
    return {
      kind: "message",
      stopReason: "tool_use",
      content: [toolUse("toolu_w", "write_file", { path: "out.txt", content: "third" })],
    };
  return reply.text("done");
}

const session = (rt: Runtime): Promise<string> =>
  rt.session({ at: at(1), binding: "work", prompt: "Do the work", permissions: { bash: "allow" } });

type Block = Record<string, unknown>;
const lastContent = (request: FakeRequest): Block[] => request.body!.messages.at(-1)!.content as Block[];

describe("tool calls with an id used already", () => {
  it("runs the first call of an id once; the others get an error under an id of their own, and the run goes on", async () => {
    const cwd = temporaryFolder();
    const server = await serve(misbehaving);
    const events: RunEvent[] = [];
    const { result } = await runAgainst(server, session, { cwd, onEvent: (event) => events.push(event) });
    expect(result).toBe("done");
    expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("first");
    expect(readFileSync(join(cwd, "calls.log"), "utf8")).toBe("ran\n");
    expect(events.filter((event) => event.type === "tool").map((event) => event.type === "tool" && event.tool)).toEqual(
      ["write_file", "run_command"],
    );

    const [, second, third] = server.requests;
    // The reply as sent back: the repeated calls under ids of their own, one result for each id.
    const sentReply = second!.body!.messages.at(-2)!.content as Block[];
    expect(sentReply.map((block) => block["id"])).toEqual(["toolu_w", "toolu_c", "toolu_w_2", "toolu_c_2"]);
    const results = lastContent(second!);
    expect(results.map((block) => [block["tool_use_id"], block["is_error"] === true])).toEqual([
      ["toolu_w", false],
      ["toolu_c", false],
      ["toolu_w_2", true],
      ["toolu_c_2", true],
    ]);
    expect(results[2]!["content"]).toMatch(/^This write_file call was not run: its id toolu_w was used already/);
    // An id of an earlier turn is used already too.
    expect((third!.body!.messages.at(-2)!.content as Block[]).map((block) => block["id"])).toEqual(["toolu_w_3"]);
    expect(lastContent(third!)[0]).toMatchObject({ tool_use_id: "toolu_w_3", is_error: true });
    const problems = events.flatMap((event) =>
      event.type === "unexpected-answer" ? [[event.problem, event.action, event.detail]] : [],
    );
    expect(problems).toEqual([
      ["duplicate-tool-id", "tool-error", "the model used the tool call id toolu_w twice"],
      ["duplicate-tool-id", "tool-error", "the model used the tool call id toolu_c twice"],
      ["duplicate-tool-id", "tool-error", "the model used the tool call id toolu_w twice"],
    ]);
  });

  it("is refused again when the run resumes before the repeated call was answered, and the resumed request is the same", async () => {
    const reference = await serve(misbehaving);
    const referenceCwd = temporaryFolder();
    await runAgainst(reference, session, { cwd: referenceCwd });

    const cwd = temporaryFolder();
    const runDir = join(cwd, ".prose", "runs", "run");
    const controller = new AbortController();
    const first = await serve((request) => {
      if (turnOf(request) === 0) return misbehaving(request);
      controller.abort(new Error("stopped"));
      return reply.hang();
    });
    await expect(
      runAgainst(first, session, { cwd, runDir, runId: "20260101-000000-000001", signal: controller.signal }),
    ).rejects.toThrow();
    // As a crash right after the first calls ran would leave it: the repeated calls not answered yet.
    const path = join(runDir, "journal.jsonl");
    const lines = readFileSync(path, "utf8").split("\n").slice(0, -1);
    const turn = (line: string): { type?: string; id?: string } =>
      (JSON.parse(line) as { turn?: { type?: string; id?: string } }).turn ?? {};
    expect(lines.map((line) => [turn(line).type, turn(line).id])).toEqual([
      ["response", undefined],
      ["tool-started", "toolu_w"],
      ["tool-finished", "toolu_w"],
      ["tool-started", "toolu_c"],
      ["tool-finished", "toolu_c"],
      ["tool-finished", "toolu_w_2"],
      ["tool-finished", "toolu_c_2"],
    ]);
    writeFileSync(path, `${lines.slice(0, 5).join("\n")}\n`);

    const server = await serve(misbehaving);
    const { result } = await runAgainst(server, session, { cwd, runDir, resume: true });
    expect(result).toBe("done");
    expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("first");
    expect(readFileSync(join(cwd, "calls.log"), "utf8")).toBe("ran\n");
    const sent = (folder: string) => (request: FakeRequest) => JSON.stringify(request.body).replaceAll(folder, "<cwd>");
    expect(server.requests.map(sent(cwd))).toEqual(reference.requests.slice(1).map(sent(referenceCwd)));
  });
});
