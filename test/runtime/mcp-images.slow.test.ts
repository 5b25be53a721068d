/**
 * An MCP image result (server-everything's `get-tiny-image`) reaches the model as an image block in
 * the tool result: journaled with the call, sent again by a resumed session without calling the
 * server, counted against the result and conversation caps by its base64 length (an image over the
 * result cap becomes a line saying so). Redaction reads the text beside it, not the image.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { describe, expect, it } from "vitest";
import type { Runtime } from "../../runtime/index.js";
import { elideToolResults, toolResultContent } from "../../runtime/steps/tool-output.js";
import { reply, type FakeReply, type FakeRequest, type FakeServer, turnOf } from "../support/fake-anthropic.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { childrenRunning, EVERYTHING, stdioServers, writeMcpJson } from "../support/mcp-servers.js";
import { at, runAgainst, temporaryFolder } from "./helpers.js";

const serve = fakeServersPerTest();

const script = (request: FakeRequest): FakeReply =>
  turnOf(request) === 0 ? reply.toolUse([{ name: "mcp__everything__get-tiny-image", input: {} }]) : reply.text("seen");

const session = (rt: Runtime): Promise<string> =>
  rt.session({
    at: at(1),
    binding: "look",
    prompt: "Look",
    agent: { name: "viewer", permissions: { mcp: ["everything/get-tiny-image"] } },
  });

interface Part {
  readonly type: string;
  readonly text?: string;
  readonly source?: { readonly type: string; readonly media_type: string; readonly data: string };
}

/** The content of the tool result the model was sent with its second turn. */
function sentResult(server: FakeServer): Part[] {
  const request = server.requests.find((r) => turnOf(r) === 1)!;
  const blocks = request.body!.messages.at(-1)!.content as Array<{ content: Part[] | string }>;
  const content = blocks[0]!.content;
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

function project(): string {
  const cwd = temporaryFolder("prosec-mcp-image-");
  writeMcpJson(cwd, stdioServers(join(cwd, "memory.jsonl")));
  return cwd;
}

describe("MCP image results", () => {
  it("are image blocks, journaled, and sent again by a resumed session without calling the server", async () => {
    const cwd = project();
    const runDir = join(cwd, ".prose", "runs", "run");
    const runId = "20260101-000000-0img44";
    const first = await serve(script);
    await runAgainst(first, session, { cwd, runDir, runId });
    const sent = sentResult(first);
    const image = sent.find((part) => part.type === "image")!;
    expect(image.source).toMatchObject({ type: "base64", media_type: "image/png" });
    expect(Buffer.from(image.source!.data, "base64").subarray(1, 4).toString()).toBe("PNG");

    const path = join(runDir, "journal.jsonl");
    const journal = readFileSync(path, "utf8");
    const finished = journal.split("\n").find((line) => line.includes('"tool-finished"'))!;
    expect(finished).toContain(image.source!.data);
    // As a crash after the call leaves it: the call finished, the next turn never answered.
    const kept = journal
      .split("\n")
      .filter((line) => line !== "" && !line.includes('"kind":"session"'))
      .filter((line, index, all) => !(line.includes('"type":"response"') && index > all.indexOf(finished)));
    writeFileSync(path, `${kept.join("\n")}\n`);

    const second = await serve(script);
    const { result, events } = await runAgainst(second, session, { cwd, runDir, runId, resume: true });
    expect(result).toBe("seen");
    expect(second.requests.map(turnOf)).toEqual([1]);
    expect(sentResult(second)).toEqual(sent);
    // The tool did not run again: the image came from the journal.
    expect(events.filter((event) => event.type === "tool")).toEqual([]);
    expect(childrenRunning(EVERYTHING)).toEqual([]);
  });

  it("count against the result cap: an image over what is left becomes a line saying so", async () => {
    const server = await serve(script);
    await runAgainst(server, session, { cwd: project(), maxToolResultChars: 200 });
    const sent = sentResult(server);
    expect(sent.map((part) => part.type)).toEqual(["text"]);
    expect(sent[0]!.text).toMatch(/\[image not shown: image\/png, [\d,]+ characters of base64, more than the \d+ left/);
  });

  it("count against the conversation cap by their base64 length", () => {
    const image = { type: "image" as const, mediaType: "image/png" as const, data: "A".repeat(4000) };
    const limits = { callsPerTurn: 64, resultChars: 10_000, conversationChars: 9000 };
    const content = toolResultContent([{ type: "text", text: "a picture" }, image], limits, (text) => text);
    const turn = (id: string): MessageParam[] => [
      { role: "assistant", content: [{ type: "tool_use", id, name: "mcp__x__y", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] },
    ];
    expect(elideToolResults([...turn("a"), ...turn("b")], limits).elided).toEqual([]);
    // Three images (12,027 characters with their text) pass the limit: the oldest go, down to half of it.
    expect(elideToolResults([...turn("a"), ...turn("b"), ...turn("c")], limits).elided).toEqual(["a", "b"]);
  });

  it("redaction reads the text beside an image; the image's bytes are passed as they are", () => {
    const content = toolResultContent(
      [
        { type: "text", text: "key sk-secret here" },
        { type: "image", mediaType: "image/gif", data: "R0lGODlh" },
      ],
      { callsPerTurn: 64, resultChars: 1000, conversationChars: 10_000 },
      (text) => text.replaceAll("sk-secret", "[redacted]"),
    );
    expect(content).toEqual([
      { type: "text", text: "key [redacted] here" },
      { type: "image", source: { type: "base64", media_type: "image/gif", data: "R0lGODlh" } },
    ]);
  });
});
