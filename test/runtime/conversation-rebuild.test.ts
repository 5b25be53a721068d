import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { describe, expect, it } from "vitest";
import { elidedResults, rebuild } from "../../runtime/durable/conversation.js";
import { elideToolResults } from "../../runtime/steps/tool-output.js";
import type { TurnEvent } from "../../runtime/types.js";

const usage = { model: "claude-haiku-4-5", inputTokens: 1, outputTokens: 1 };
const limits = { callsPerTurn: 64, resultChars: 1_000, conversationChars: 1_500 };
const first: MessageParam = { role: "user", content: "Read the files." };

function result(id: string, size: number): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: id, content: id.repeat(size / id.length) };
}

function response(ids: readonly string[]): TurnEvent {
  return {
    type: "response",
    content: ids.map((id) => ({ type: "tool_use" as const, id, name: "read_file", input: { path: `${id}.md` } })),
    stop: "tool_use",
    usage,
  };
}

/** The session loop's own steps, as `session.ts` takes them: journaling what it elides. */
function live(turns: readonly (readonly string[])[]): { messages: MessageParam[]; events: TurnEvent[] } {
  let messages: MessageParam[] = [first];
  const events: TurnEvent[] = [];
  for (const ids of turns) {
    const reply = response(ids);
    events.push(reply);
    messages.push({ role: "assistant", content: [...(reply.type === "response" ? reply.content : [])] });
    const results = ids.map((id) => result(id, 600));
    for (const r of results) events.push({ type: "tool-finished", id: r.tool_use_id, result: r });
    messages.push({ role: "user", content: results });
    const { messages: kept, elided } = elideToolResults(messages, limits);
    messages = kept;
    if (elided.length > 0) events.push({ type: "elided", results: elidedResults(kept, elided) });
  }
  return { messages, events };
}

describe("a conversation whose old tool results were elided", () => {
  it("is rebuilt from its journal byte for byte, with the turn closed", () => {
    const { messages, events } = live([["aa", "bb"], ["cc"], ["dd", "ee"]]);
    expect(events.some((event) => event.type === "elided")).toBe(true);
    const rebuilt = rebuild(first, events);
    expect(JSON.stringify(rebuilt.messages)).toBe(JSON.stringify(messages));
    expect(rebuilt.turnOpen).toBe(false);
    expect(rebuilt.pending).toEqual([]);
  });

  it("leaves the last turn open when nothing was elided after it", () => {
    const { events } = live([["aa"]]);
    const rebuilt = rebuild(first, events);
    expect(rebuilt.turnOpen).toBe(true);
    expect(rebuilt.results.map((r) => r.tool_use_id)).toEqual(["aa"]);
  });
});

describe("a reply cut off at max_tokens", () => {
  it("is rebuilt with its continuation request, and its text kept as a piece of the answer", () => {
    const cut: TurnEvent = {
      type: "continued",
      content: [{ type: "text", text: "The first half of" }],
      usage,
    };
    const rebuilt = rebuild(first, [cut]);
    expect(rebuilt.pieces).toEqual(["The first half of"]);
    expect(rebuilt.turns).toBe(1);
    expect(rebuilt.turnOpen).toBe(false);
    expect(rebuilt.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(rebuilt.messages[2])).toContain("Continue it exactly where it stopped");
  });
});
