/**
 * The narration's closing line counts cache writes and reads apart, and prices them at 1.25x and 0.1x;
 * a program that calls another closes with one such line, its own.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createNarrator } from "../../src/run/narration.js";
import { loadProgram } from "../../src/run/load-program.js";
import { reply, startFakeAnthropic } from "../support/fake-anthropic.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

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

describe("the narration of a program that calls another", () => {
  it("ends with the totals line of the run alone, not one for each called program's end", async () => {
    requireBuiltRuntime();
    const server = await startFakeAnthropic({ respond: () => reply.text("An answer.") });
    const project = temporaryFolder("prosec-narration-");
    try {
      writeFileSync(join(project, "child.prose"), 'input text: "A text"\n\noutput short = session "Shorten {text}"\n');
      writeFileSync(
        join(project, "main.prose"),
        'use "./child.prose" as child\n\nlet { short } = child(text: "tides")\noutput final = session "Expand {short}"\n',
      );
      const loaded = await loadProgram("main.prose", { cwd: project });
      if (loaded.module === undefined) throw new Error("main.prose does not compile");
      const events: Parameters<ReturnType<typeof createNarrator>["event"]>[0][] = [];
      await loaded.module.run(
        {},
        { apiKey: TEST_API_KEY, baseURL: server.url, maxRetries: 0, cwd: project, onEvent: (e) => events.push(e) },
      );
      const lines = narrate(events).trimEnd().split("\n");
      expect(lines.filter((line) => /^(done|stopped) in /.test(line))).toHaveLength(1);
      expect(lines.at(-1)).toMatch(/^done in .* · 2 sessions · /);
    } finally {
      await server.close();
      rmSync(project, { recursive: true, force: true });
    }
  });
});

describe("the narration of streamed text", () => {
  type Event = Parameters<ReturnType<typeof createNarrator>["event"]>[0];
  const site = (line: number) => ({ line, column: 1 });
  const start = (line: number, label: string): Event => ({ type: "session-start", time: 0, at: site(line), label });
  const end = (line: number, label: string): Event => ({
    type: "session-end",
    time: 0,
    at: site(line),
    label,
    usage: [],
    replayed: false,
  });
  const delta = (line: number, text: string, begins = false): Event => ({
    type: "delta",
    time: 0,
    at: site(line),
    label: `s${line}`,
    step: `k${line}`,
    model: "m",
    text,
    ...(begins ? { begins: true as const } : {}),
  });

  function live(events: Event[], mode: "live" | "plain" | "json" = "live", stream = false, tty = false): string {
    let written = "";
    const out = new Writable({ write: (chunk: Buffer, _encoding, done) => ((written += chunk.toString()), done()) });
    if (tty) Object.assign(out, { isTTY: true });
    const narrator = createNarrator(mode, out, false, { stream });
    for (const event of events) narrator.event(event);
    narrator.pause();
    return written;
  }

  it("writes a lone session's text as it arrives, then its line", () => {
    const text = live([
      start(3, "s3"),
      delta(3, "Hello, ", true),
      delta(3, "world."),
      delta(3, "Second turn.", true),
      end(3, "s3"),
    ]);
    // The status line is cleared before the text begins; turns start on lines of their own.
    expect(text).toContain("\r\x1b[Ks3:\nHello, world.\nSecond turn.\n✓ 3:1 s3 · 0 tokens\n");
  });

  const hostile = "Hi\x1b]0;TITLE\x07 \x1b]52;c;c2VjcmV0\x07\x1b[2Jthere\r\n";

  it("on a terminal, a model's text reaches it without escape sequences or control characters", () => {
    const shown = live([start(3, "s3"), delta(3, hostile, true), end(3, "s3")], "live", false, true);
    expect(shown).toContain("s3:\nHi there\n");
    // Only the narration's own erase-line sequences remain.
    expect(shown.replace(/\r\x1b\[K/g, "")).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });

  it("piped, a model's text keeps its bytes", () => {
    expect(live([start(3, "s3"), delta(3, hostile, true), end(3, "s3")])).toContain(`s3:\n${hostile}`);
  });

  it("shows parallel sessions as lanes with the characters they streamed, never their text", () => {
    const text = live([start(1, "s1"), start(2, "s2"), delta(1, "abc", true), delta(2, "defgh", true), delta(1, "ij")]);
    expect(text).not.toContain("abc");
    expect(text).toContain("… running: s1, s2");
    // The lanes are redrawn on a timer (not under test here): the next event draws them.
  });

  it("shows a parallel session left running alone from the start of its answer, not from mid-word", () => {
    const text = live([
      start(1, "s1"),
      start(2, "s2"),
      delta(1, "Tides are ", true),
      delta(2, "Short.", true),
      delta(1, "predictable, unlike "),
      end(2, "s2"),
      delta(1, "winds and currents."),
      delta(1, " Next."),
      end(1, "s1"),
    ]);
    expect(text).toContain("s1:\nTides are predictable, unlike winds and currents. Next.\n✓ 1:1 s1");
    expect(text).not.toContain("Short.");
  });

  it("a session alone again after an abandoned request starts from the request sent again", () => {
    const text = live([
      start(1, "s1"),
      start(2, "s2"),
      delta(1, "Lost ", true),
      { type: "abandoned", time: 0, at: site(1), label: "s1", step: "k1", model: "m", characters: 5, reason: "cut" },
      delta(1, "Kept ", true),
      end(2, "s2"),
      delta(1, "text."),
      end(1, "s1"),
    ]);
    expect(text).toContain("s1:\nKept text.\n");
  });

  it("draws one status line per lane once text has streamed, and clears all of them", () => {
    const text = live([
      start(1, "s1"),
      start(2, "s2"),
      delta(1, "abc", true),
      delta(2, "defgh", true),
      { type: "notice", time: 0, message: "hi" },
    ]);
    expect(text).toContain("… s1 · 3 characters so far\n… s2 · 5 characters so far");
    expect(text.endsWith("\r\x1b[K\x1b[1A\x1b[K")).toBe(true);
  });

  it("says when the text shown was abandoned, and which model a call fell back to", () => {
    const text = live([
      start(3, "s3"),
      delta(3, "Half", true),
      {
        type: "abandoned",
        time: 0,
        at: site(3),
        label: "s3",
        step: "k3",
        model: "m",
        characters: 4,
        reason: "terminated",
      },
      delta(3, "Whole", true),
      { type: "fallback", time: 0, at: site(3), label: "s3", from: "a", to: "b", reason: "overloaded: Overloaded" },
      end(3, "s3"),
    ]);
    expect(text).toContain("Half\n↺ 3:1 s3: the text above is abandoned (terminated); asking again\n");
    expect(text).toContain("s3:\nWhole\n↪ 3:1 s3: a (overloaded: Overloaded) → b\n✓ 3:1 s3");
  });

  it("off a terminal shows no streamed text; --json shows delta events only with --stream", () => {
    const events = [start(3, "s3"), delta(3, "Hello", true), end(3, "s3")];
    expect(live(events, "plain")).not.toContain("Hello");
    expect(live(events, "json")).not.toContain('"delta"');
    const lines = live(events, "json", true)
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines.map((line) => line.type)).toEqual(["session-start", "delta", "session-end"]);
  });
});
