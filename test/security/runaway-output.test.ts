/**
 * A model that asks for more tool output than a process can hold: 100 reads of a 200 KB file in one
 * turn, three turns running. The real tools read real files; the fake Messages API records what the
 * runtime sends back. Calls beyond the turn's limit get error results, each result is cut, and the
 * conversation's tool output stays bounded by eliding the oldest results.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_TOOL_OUTPUT_LIMITS, elideToolResults } from "../../runtime/steps/tool-output.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst, temporaryFolder } from "../runtime/helpers.js";

let model: FakeServer | undefined;
const folders: string[] = [];
afterEach(async () => {
  await model?.close();
  model = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

interface SentResult {
  readonly content: string;
  readonly isError: boolean;
}

function resultsOf(body: { messages: readonly { role: string; content: unknown }[] } | undefined): SentResult[][] {
  return (body?.messages ?? [])
    .filter((message) => message.role === "user" && Array.isArray(message.content))
    .map((message) =>
      (message.content as Record<string, unknown>[])
        .filter((block) => block["type"] === "tool_result")
        .map((block) => ({ content: String(block["content"]), isError: block["is_error"] === true })),
    )
    .filter((results) => results.length > 0);
}

describe("tool output without bound", () => {
  it("answers 64 calls a turn, cuts each result, and keeps the conversation's tool output under 2 MB", async () => {
    const cwd = temporaryFolder();
    folders.push(cwd);
    writeFileSync(join(cwd, "big.txt"), `${"0123456789abcdef".repeat(12_800)}\n`); // 200 KB
    const turn = () =>
      reply.toolUse(Array.from({ length: 100 }, () => ({ name: "read_file", input: { path: "big.txt" } })));
    model = await startFakeAnthropic({ script: [turn(), turn(), turn(), reply.text("read it all")] });
    const { result } = await runAgainst(model, (rt) => rt.session({ at: at(1), prompt: "Read big.txt" }), { cwd });
    expect(result).toBe("read it all");

    const limits = DEFAULT_TOOL_OUTPUT_LIMITS;
    const firstAnswer = resultsOf(model.requests[1]!.body)[0]!;
    expect(firstAnswer).toHaveLength(100);
    expect(firstAnswer.filter((r) => r.isError)).toHaveLength(36);
    expect(firstAnswer.at(-1)!.content).toMatch(/at most 64 tool calls are answered per turn/);
    const kept = firstAnswer.find((r) => !r.isError && !r.content.startsWith("[tool result elided"))!;
    expect(kept.content).toMatch(/tool result truncated: [\d,]+ characters in all, the first 131,072 shown/);

    for (const request of model.requests.slice(1)) {
      const sent = resultsOf(request.body).flat();
      const total = sent.reduce((sum, r) => sum + r.content.length, 0);
      expect(total).toBeLessThanOrEqual(limits.conversationChars + 200 * 300);
      expect(sent.some((r) => r.content.startsWith("[tool result elided"))).toBe(true);
    }
  });

  it("eliding is a function of the conversation: the same messages elide the same results, oldest first", () => {
    const limits = { callsPerTurn: 64, resultChars: 1000, conversationChars: 3500 };
    const turn = (ids: string[]) => [
      {
        role: "assistant" as const,
        content: ids.map((id) => ({ type: "tool_use" as const, id, name: "x", input: {} })),
      },
      {
        role: "user" as const,
        content: ids.map((id) => ({ type: "tool_result" as const, tool_use_id: id, content: "r".repeat(1000) })),
      },
    ];
    const conversation = [{ role: "user" as const, content: "task" }, ...turn(["a", "b"]), ...turn(["c", "d"])];
    const once = elideToolResults(conversation, limits);
    const again = elideToolResults(structuredClone(conversation), limits);
    expect(once.elided).toEqual(["a", "b", "c"]);
    expect(again).toEqual(once);
    expect(conversation[2]!.content).not.toBe(once.messages[2]!.content);
    expect(elideToolResults(once.messages, limits).elided).toEqual([]);
  });
});
