/**
 * Typed results (`returns:`, DIALECT.md "Typed results") against the scripted fake Messages API: the
 * `answer` tool with the type's schema, forced when the session has no other tools and asked for once
 * when a session with tools ends in text; a wrong answer re-asked with what failed, under `reasks`,
 * recorded in the journal as a judgment's re-asks are; a step that fails quoting every answer.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MemoryJournal } from "../../runtime/durable/journal.js";
import type { RunEvent, SessionRequest } from "../../runtime/types.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

type Risk = { readonly title: string; readonly severity: "low" | "high"; readonly detail?: string };

const RISKS = {
  type: "array",
  items: {
    type: "object",
    properties: { title: { type: "string" }, severity: { enum: ["low", "high"] }, detail: { type: "string" } },
    required: ["title", "severity"],
    additionalProperties: false,
  },
} as const;

/** A session with no tools: its answer is forced from the first request. */
const toolless: SessionRequest = {
  at: at(3),
  prompt: "List the risks",
  binding: "risks",
  permissions: { read: [], write: [] },
};

const answer = (value: unknown) => reply.toolUse([{ name: "answer", input: { answer: value } }]);
const good = [{ title: "Outage", severity: "high" }];

const unexpected = (events: readonly RunEvent[]) =>
  events.flatMap((event) => (event.type === "unexpected-answer" ? [[event.problem, event.action, event.attempt]] : []));

describe("a typed session's answer", () => {
  it("is the answer tool's value, asked with the schema wrapped in { answer } and forced without other tools", async () => {
    server = await startFakeAnthropic({ script: [answer(good)] });
    const { result } = await runAgainst(server, (rt) => rt.session<Risk[]>({ ...toolless, returns: RISKS }));
    expect(result).toEqual(good);
    const body = server.requests[0]!.body!;
    expect(body.tools).toEqual([
      expect.objectContaining({
        name: "answer",
        input_schema: {
          type: "object",
          properties: { answer: RISKS },
          required: ["answer"],
          additionalProperties: false,
        },
      }),
    ]);
    expect(body.tool_choice).toEqual({ type: "tool", name: "answer" });
  });

  it("of the wrong shape once, then right: one re-ask quoting what failed, recorded in the journal", async () => {
    server = await startFakeAnthropic({
      script: [answer([{ title: "Outage", severity: "critical", owner: "ops" }]), answer(good)],
    });
    const journal = new MemoryJournal();
    const { result, events } = await runAgainst(server, (rt) => rt.session<Risk[]>({ ...toolless, returns: RISKS }), {
      journal,
    });
    expect(result).toEqual(good);
    expect(server.requests).toHaveLength(2);
    const second = server.requests[1]!.body!;
    expect(second.tool_choice).toEqual({ type: "tool", name: "answer" });
    const correction = JSON.stringify(second.messages.at(-1));
    expect(correction).toContain('[0] has the key \\"owner\\", which the type does not declare');
    expect(correction).toContain('[0].severity must be one of \\"low\\", \\"high\\"');
    expect(unexpected(events)).toEqual([["shape", "reask", 1]]);
    const step = [...journal.steps.values()].find((recorded) => recorded.kind === "session")!;
    expect(step.value).toEqual(good);
    expect(step.attempts).toBe(2);
    expect(step.problems).toEqual([expect.stringMatching(/^answer 1: .*owner/)]);
  });

  it("never right: the step fails after --reasks re-asks, quoting every answer", async () => {
    server = await startFakeAnthropic({
      script: [answer("not a list"), answer([{ title: 1 }]), reply.text("Here you go: outage, high.")],
    });
    const { error, events } = await failingRun(server, (rt) => rt.session({ ...toolless, returns: RISKS }));
    expect(server.requests).toHaveLength(3);
    expect(error.message).toContain("did not match the session's `returns:` type after 3 answers");
    expect(error.message).toContain('answer 1: "{\\"answer\\":\\"not a list\\"}"');
    expect(error.message).toContain('answer 2: "{\\"answer\\":[{\\"title\\":1}]}"');
    expect(error.message).toContain('answer 3: text "Here you go: outage, high."');
    expect(error.message).toContain("It was asked again 2 times (--reasks, RunOptions.reasks)");
    expect(unexpected(events)).toEqual([
      ["shape", "reask", 1],
      ["shape", "reask", 2],
      ["text", "fail", 3],
    ]);
  });

  it("never right and caught: the failure is an invalid answer (its cause), as a judgment's is", async () => {
    server = await startFakeAnthropic({ script: [answer("a"), answer("b"), answer("c")] });
    const { result, events } = await runAgainst(server, async (rt) => {
      try {
        return await rt.session({ ...toolless, returns: RISKS });
      } catch (error) {
        rt.catchable(error);
        return "caught";
      }
    });
    expect(result).toBe("caught");
    const caught = events.filter((event) => event.type === "step-caught");
    expect(caught.map((event) => event.cause)).toEqual(["invalid-answer"]);
  });

  it("never right: the three calls it made count in the run's totals, though the step failed", async () => {
    server = await startFakeAnthropic({ script: [answer("a"), answer("b"), answer("c")] });
    const { events } = await runAgainst(server, async (rt) => {
      try {
        return await rt.session({ ...toolless, returns: RISKS });
      } catch (error) {
        rt.catchable(error);
        return "caught";
      }
    });
    const end = events.find((event) => event.type === "run-end");
    const billed = server.requests.map((request) => request.usage);
    expect(billed).toHaveLength(3);
    expect(end?.type === "run-end" ? end.usage : []).toEqual([
      expect.objectContaining({
        inputTokens: billed.reduce((sum, usage) => sum + (usage?.input_tokens ?? 0), 0),
        outputTokens: billed.reduce((sum, usage) => sum + (usage?.output_tokens ?? 0), 0),
      }),
    ]);
  });

  it("an answer cut off at max_tokens is asked again, as a judgment's is", async () => {
    server = await startFakeAnthropic({
      script: [
        {
          kind: "message",
          content: [{ type: "tool_use", id: "toolu_cut", name: "answer", input: {} }],
          stopReason: "max_tokens",
        },
        answer(good),
      ],
    });
    const { result, events } = await runAgainst(server, (rt) => rt.session({ ...toolless, returns: RISKS }));
    expect(result).toEqual(good);
    expect(unexpected(events)).toEqual([["max-tokens", "reask", 1]]);
  });

  it("text still cut off is never its answer, even with --on-truncation keep: the step fails", async () => {
    server = await startFakeAnthropic({ script: [reply.cut("[{"), reply.cut('"title"')] });
    const { error, events } = await failingRun(server, (rt) => rt.session({ ...toolless, returns: RISKS }), {
      continuations: 1,
      maxTokens: 100,
      onTruncation: "keep",
    });
    expect(error.message).toContain(
      "Raise --max-tokens (RunOptions.maxTokens): a session with `returns:` never keeps cut text as its answer",
    );
    expect(unexpected(events)).toEqual([
      ["max-tokens", "continue", 1],
      ["max-tokens", "fail", 2],
    ]);
    expect(events.some((event) => event.type === "session-end")).toBe(false);
  });

  it("text cut off by the context window is never its answer, even with --on-truncation keep", async () => {
    const full = {
      kind: "message",
      content: [{ type: "text", text: "[{" }],
      stopReason: "model_context_window_exceeded",
    } as const;
    server = await startFakeAnthropic({ script: [full] });
    const { error } = await failingRun(server, (rt) => rt.session({ ...toolless, returns: RISKS }), {
      onTruncation: "keep",
    });
    expect(error.message).toContain("context window. A session with `returns:` never keeps cut text as its answer");
  });

  it("--reasks 0: the first wrong answer fails the step", async () => {
    server = await startFakeAnthropic({ script: [answer([])] });
    const { error } = await failingRun(server, (rt) => rt.session({ ...toolless, returns: { type: "string" } }), {
      reasks: 0,
    });
    expect(error.message).toContain("after 1 answer");
    expect(server.requests).toHaveLength(1);
  });

  it("with tools: answer is offered beside them under auto, and asked for once when the session ends in text", async () => {
    server = await startFakeAnthropic({ script: [reply.text("The main risk is an outage."), answer(good)] });
    const { result, events } = await runAgainst(server, (rt) =>
      rt.session<Risk[]>({ at: at(3), prompt: "List the risks", returns: RISKS }),
    );
    expect(result).toEqual(good);
    const first = server.requests[0]!.body!;
    expect(first.tool_choice).toBeUndefined();
    expect((first.tools ?? []).map((tool) => tool.name)).toContain("read_file");
    expect((first.tools ?? []).map((tool) => tool.name)).toContain("answer");
    const second = server.requests[1]!.body!;
    expect(second.tool_choice).toEqual({ type: "tool", name: "answer" });
    expect(JSON.stringify(second.messages.at(-1))).toContain('Now give your result by calling the tool \\"answer\\"');
    // Asking for the answer is not a re-ask.
    expect(unexpected(events)).toEqual([]);
  });

  it("an answer beside other tool calls wins: the other calls do not run", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([
          { name: "write_file", input: { path: "x.txt", content: "x" } },
          { name: "answer", input: { answer: good } },
        ]),
      ],
    });
    const { result, events } = await runAgainst(server, (rt) =>
      rt.session<Risk[]>({ at: at(3), prompt: "List the risks", returns: RISKS }),
    );
    expect(result).toEqual(good);
    expect(server.requests).toHaveLength(1);
    expect(events.filter((event) => event.type === "tool")).toEqual([]);
  });

  it("text that is JSON of the type (a server that ignores tool_choice) is the answer", async () => {
    server = await startFakeAnthropic({
      script: [reply.text('```json\n[{"title": "Outage", "severity": "high"}]\n```')],
    });
    const { result } = await runAgainst(server, (rt) => rt.session({ ...toolless, returns: RISKS }));
    expect(result).toEqual(good);
  });

  it("an optional key is left out, never null unless its type says so", async () => {
    server = await startFakeAnthropic({
      script: [
        answer([{ title: "Outage", severity: "low", detail: null }]),
        answer([{ title: "Outage", severity: "low" }]),
      ],
    });
    const { result } = await runAgainst(server, (rt) => rt.session({ ...toolless, returns: RISKS }));
    expect(result).toEqual([{ title: "Outage", severity: "low" }]);
    expect(JSON.stringify(server.requests[1]!.body!.messages.at(-1))).toContain("[0].detail must be string");
  });

  it('a tool of RunOptions.tools named "answer" is refused before the run starts', async () => {
    server = await startFakeAnthropic({ script: [] });
    const { error } = await failingRun(server, (rt) => rt.session({ ...toolless, returns: RISKS }), {
      tools: [{ name: "answer", description: "x", inputSchema: { type: "object" }, run: async () => "x" }],
    });
    expect(error.message).toContain('the tool name "answer" is reserved');
    expect(server.requests).toHaveLength(0);
  });
});
