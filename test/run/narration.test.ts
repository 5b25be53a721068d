/**
 * The narration's closing line counts cache writes and reads apart, and prices them at 1.25x and 0.1x.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createNarrator } from "../../src/run/narration.js";

function narrate(events: Parameters<ReturnType<typeof createNarrator>["event"]>[0][]): string {
  let written = "";
  const out = new Writable({ write: (chunk: Buffer, _encoding, done) => ((written += chunk.toString()), done()) });
  const narrator = createNarrator("plain", out, false);
  for (const event of events) narrator.event(event);
  return written;
}

describe("the narration's totals", () => {
  it("shows cache writes and reads beside the input, and the cost with their multipliers", () => {
    const usage = [
      {
        model: "claude-sonnet-5-5",
        inputTokens: 1_000_000,
        outputTokens: 0,
        cacheWriteTokens: 1_000_000,
        cacheReadTokens: 1_000_000,
      },
    ];
    const text = narrate([
      { type: "session-end", time: 5, label: "Research", usage, replayed: false, at: { line: 1, column: 1 } },
      { type: "run-end", time: 1500, ok: true, usage },
    ]);
    expect(text).toContain("✓ 1:1 Research · 3,000,000 tokens\n");
    // $3 input + $3.75 written + $0.30 read.
    expect(text).toContain(
      "done in 1.5 s · 1 session · 1,000,000 input + 1,000,000 cache write + 1,000,000 cache read + 0 output tokens · ≈ $7.05\n",
    );
  });

  it("without cache traffic, input and output only", () => {
    const usage = [{ model: "claude-haiku-5-5", inputTokens: 2_000, outputTokens: 500 }];
    expect(narrate([{ type: "run-end", time: 100, ok: false, usage }])).toBe(
      "stopped in 0.1 s · 0 sessions · 2,000 input + 500 output tokens · ≈ $0.0045\n",
    );
  });
});
