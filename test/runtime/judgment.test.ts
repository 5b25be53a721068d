import { afterEach, describe, expect, it } from "vitest";
import { lastUserText, reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

describe("judge", () => {
  it("forces the answer tool and reads {answer, reason}; sees the condition and the bindings in scope", async () => {
    server = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "answer", input: { answer: true, reason: "tests pass" } }])],
    });
    const { result, events } = await runAgainst(server, (rt) =>
      rt.judge(at(7), "the tests pass", { report: "All 12 tests passed" }),
    );
    expect(result).toBe(true);
    const body = server.requests[0]!.body!;
    expect(body.tool_choice).toEqual({ type: "tool", name: "answer" });
    expect(lastUserText(server.requests[0]!)).toContain("the tests pass");
    expect(lastUserText(server.requests[0]!)).toContain("### report\n\nAll 12 tests passed");
    expect(events).toContainEqual(
      expect.objectContaining({ type: "judgment", question: "the tests pass", answer: "yes", reason: "tests pass" }),
    );
  });

  it("falls back to the text when the server ignores tool_choice", async () => {
    server = await startFakeAnthropic({ script: [reply.text("**No.** Coverage is 60%."), reply.text("Yes, it is.")] });
    const { result } = await runAgainst(server, async (rt) => [
      await rt.judge(at(1), "coverage is high", {}),
      await rt.judge(at(2), "x", {}),
    ]);
    expect(result).toEqual([false, true]);
  });

  it("fails clearly when the answer cannot be read and no re-ask is allowed", async () => {
    server = await startFakeAnthropic({ script: [reply.text("It depends.")] });
    const { error } = await failingRun(server, (rt) => rt.judge(at(4, 2), "ready", {}), { reasks: 0 });
    expect(error.message).toMatch(/test-program\.prose:4:2: .*could not be read as yes or no after 1 answer/);
    expect(server.requests).toHaveLength(1);
  });
});

describe("judge", () => {
  it("tells the judge which construct asks, and what keeps a loop going for until and for while", async () => {
    const yes = reply.toolUse([{ name: "answer", input: { answer: true, reason: "r" } }]);
    server = await startFakeAnthropic({ script: [yes, yes, yes] });
    await runAgainst(server, async (rt) => [
      await rt.judge(at(1), "done", {}, "until"),
      await rt.judge(at(2), "more", { n: 2 }, "while"),
      await rt.judge(at(3), "ok", {}),
    ]);
    expect(server.requests.map((request) => lastUserText(request))).toEqual([
      "Condition: done\n\nA `loop until` asks: true ends the loop, false runs another iteration. When the evidence is unclear, answer false (keep going).\n\nIs the condition true?",
      "## Context\n\n### n\n\n2\n\nCondition: more\n\nA `loop while` asks: true runs another iteration, false ends the loop. When the evidence is unclear, answer true (keep going).\n\nIs the condition true?",
      "Condition: ok\n\nThe program uses the answer as a yes-or-no value.\n\nIs the condition true?",
    ]);
  });
});

describe("choose", () => {
  it("offers numbered labels as the forced tool's enum; the number selects, so equal labels stay distinct", async () => {
    server = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "answer", input: { answer: "3. Minor", reason: "cosmetic" } }])],
    });
    const { result, events } = await runAgainst(server, (rt) =>
      rt.choose(at(3), "the severity", ["Critical", "Minor", "Minor"], {}),
    );
    expect(result).toBe(2);
    const schema = server.requests[0]!.body!.tools![0]!.input_schema as { properties: { answer: { enum: string[] } } };
    expect(schema.properties.answer.enum).toEqual(["1. Critical", "2. Minor", "3. Minor"]);
    expect(lastUserText(server.requests[0]!)).toBe(
      "Choose the option that best fits: the severity\n\nOptions:\n1. Critical\n2. Minor\n3. Minor",
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: "judgment", asks: "choice", answer: "Minor", reason: "cosmetic" }),
    );
  });

  it("can choose any label: ones ending in punctuation or quoted in backticks, by their numbered label or in text", async () => {
    const options = ["Ship it.", "Use `npm`", "Wait"];
    const tool = (answer: string) => reply.toolUse([{ name: "answer", input: { answer, reason: "r" } }]);
    server = await startFakeAnthropic({
      script: [
        tool("1. Ship it."),
        tool("2. Use `npm`"),
        reply.text("Ship it."),
        reply.text("**use `npm`**"),
        reply.text('"wait"!'),
      ],
    });
    const { result } = await runAgainst(server, async (rt) => {
      const chosen: number[] = [];
      for (let index = 0; index < 5; index++) chosen.push(await rt.choose(at(index + 1), "c", options, {}));
      return chosen;
    });
    expect(result).toEqual([0, 1, 0, 1, 2]);
  });

  it("reads a text answer by label or number", async () => {
    server = await startFakeAnthropic({ script: [reply.text("I would pick critical here."), reply.text("2")] });
    const { result } = await runAgainst(server, async (rt) => [
      await rt.choose(at(1), "c", ["Critical", "Minor"], {}),
      await rt.choose(at(2), "c", ["A", "B"], {}),
    ]);
    expect(result).toEqual([0, 1]);
  });

  it("quotes the model's real reply when it names no option", async () => {
    server = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "answer", input: { answer: "Something else", reason: "r" } }])],
    });
    const { error } = await failingRun(server, (rt) => rt.choose(at(4, 2), "c", ["Ship it.", "Wait"], {}), {
      reasks: 0,
    });
    expect(error.message).toContain(
      'names none of the options ["1. Ship it.","2. Wait"] after 1 answer: answer 1: the "answer" tool was called with {"answer":"Something else","reason":"r"}, whose answer is not one of the options.',
    );
  });

  it("quotes a text reply that names no option, as the model wrote it", async () => {
    server = await startFakeAnthropic({ script: [reply.text("**Neither**, honestly.")] });
    const { error } = await failingRun(server, (rt) => rt.choose(at(4, 2), "c", ["Ship it.", "Wait"], {}), {
      reasks: 0,
    });
    expect(error.message).toContain(
      'names none of the options ["1. Ship it.","2. Wait"] after 1 answer: answer 1: the model answered in text, not with the "answer" tool: "**Neither**, honestly."',
    );
  });
});
