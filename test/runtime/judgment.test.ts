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

  it("fails clearly when the answer cannot be read", async () => {
    server = await startFakeAnthropic({ script: [reply.text("It depends.")] });
    const { error } = await failingRun(server, (rt) => rt.judge(at(4, 2), "ready", {}));
    expect(error.message).toMatch(/test-program\.prose:4:2: .*could not be read as yes or no/);
  });
});

describe("choose", () => {
  it("offers the option labels as an enum and returns the chosen index", async () => {
    server = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "answer", input: { answer: "Minor", reason: "cosmetic" } }])],
    });
    const { result, events } = await runAgainst(server, (rt) =>
      rt.choose(at(3), "the severity", ["Critical", "Minor"], {}),
    );
    expect(result).toBe(1);
    const schema = server.requests[0]!.body!.tools![0]!.input_schema as { properties: { answer: { enum: string[] } } };
    expect(schema.properties.answer.enum).toEqual(["Critical", "Minor"]);
    expect(events).toContainEqual(expect.objectContaining({ type: "judgment", answer: "Minor", reason: "cosmetic" }));
  });

  it("reads a text answer by label or number", async () => {
    server = await startFakeAnthropic({ script: [reply.text("I would pick critical here."), reply.text("2")] });
    const { result } = await runAgainst(server, async (rt) => [
      await rt.choose(at(1), "c", ["Critical", "Minor"], {}),
      await rt.choose(at(2), "c", ["A", "B"], {}),
    ]);
    expect(result).toEqual([0, 1]);
  });
});
