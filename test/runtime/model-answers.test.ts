/**
 * When the model does not answer as asked (docs/model-answers.md), against the scripted fake Messages
 * API misbehaving on cue: one test per kind of unexpected answer, showing the run completing where
 * one more ask answers, failing with a clear message where it never does, and the exact requests sent
 * (the corrective turns included).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { knownOutputLimits } from "../../runtime/model/known-output-limits.js";
import { temporaryFolder } from "../support/temp.js";
import { MemoryJournal } from "../../runtime/durable/journal.js";
import type { RunEvent } from "../../runtime/types.js";
import { reply, startFakeAnthropic, type FakeServer, type MessagesBody } from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

const QUESTION =
  "Condition: the tests pass\n\nThe program uses the answer as a yes-or-no value.\n\nIs the condition true?";
const SHAPE = '{"answer": true or false, "reason": "<one sentence>"}';
const yes = reply.toolUse([{ name: "answer", input: { answer: true, reason: "all green" } }]);

const correction = (detail: string, shape = SHAPE): string =>
  `Your answer could not be read: ${detail}. Answer again by calling the tool "answer" with exactly this input: ${shape}`;

/** The messages of a request, tool-use ids replaced by their order, so the conversation reads as sent. */
function conversation(body: MessagesBody | undefined): unknown {
  const ids = new Map<string, string>();
  const id = (value: string): string => {
    if (!ids.has(value)) ids.set(value, `call-${ids.size + 1}`);
    return ids.get(value)!;
  };
  return JSON.parse(JSON.stringify(body?.messages ?? []), (key, value: unknown) =>
    (key === "id" || key === "tool_use_id") && typeof value === "string"
      ? id(value)
      : key === "cache_control"
        ? undefined
        : value,
  );
}

const unexpected = (events: readonly RunEvent[]) =>
  events
    .filter((event) => event.type === "unexpected-answer")
    .map((event) => (event.type === "unexpected-answer" ? [event.problem, event.action, event.attempt] : []));

describe("a judgment asks again when its answer cannot be read", () => {
  it("text instead of the forced tool: the text is the assistant's turn, then a corrective turn", async () => {
    server = await startFakeAnthropic({ script: [reply.text("I think yes, probably."), yes] });
    const journal = new MemoryJournal();
    const { result, events } = await runAgainst(server, (rt) => rt.judge(at(3), "the tests pass", {}), { journal });
    expect(result).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect(conversation(server.requests[1]!.body)).toEqual([
      { role: "user", content: QUESTION },
      { role: "assistant", content: [{ type: "text", text: "I think yes, probably." }] },
      {
        role: "user",
        content: [
          {
            type: "text",
            text: correction('the model answered in text, not with the "answer" tool: "I think yes, probably."'),
          },
        ],
      },
    ]);
    // The re-ask is forced the same way, to the same tool.
    expect(server.requests[1]!.body?.tool_choice).toEqual({ type: "tool", name: "answer" });
    expect(unexpected(events)).toEqual([["text", "reask", 1]]);
    // The run folder's journal keeps the attempt count and the reason.
    const step = journal.steps.get("/judge@3:1#0")!;
    expect(step.attempts).toBe(2);
    expect(step.problems).toEqual([
      'answer 1: the model answered in text, not with the "answer" tool: "I think yes, probably."',
    ]);
    expect(step.usage).toHaveLength(2);
  });

  it("the forced tool with the wrong shape: its call is answered with an error result, then the correction", async () => {
    server = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "answer", input: { answer: "maybe" } }]), yes],
    });
    const { result } = await runAgainst(server, (rt) => rt.judge(at(3), "the tests pass", {}));
    expect(result).toBe(true);
    expect(conversation(server.requests[1]!.body)).toEqual([
      { role: "user", content: QUESTION },
      { role: "assistant", content: [{ type: "tool_use", id: "call-1", name: "answer", input: { answer: "maybe" } }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call-1", is_error: true, content: "This answer could not be read." },
          {
            type: "text",
            text: correction('the "answer" tool was called with {"answer":"maybe"}, whose answer is not true or false'),
          },
        ],
      },
    ]);
  });

  it("max_tokens with no content: nothing to send back, so the correction joins the question's turn", async () => {
    server = await startFakeAnthropic({ script: [reply.cut(""), yes] });
    const { result, events } = await runAgainst(server, (rt) => rt.judge(at(3), "the tests pass", {}));
    expect(result).toBe(true);
    expect(conversation(server.requests[1]!.body)).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: QUESTION },
          { type: "text", text: correction("the answer was cut off at max_tokens") },
        ],
      },
    ]);
    expect(unexpected(events)).toEqual([["max-tokens", "reask", 1]]);
    // The re-ask has room for a longer answer.
    expect(server.requests.map((request) => request.body?.max_tokens)).toEqual([1024, 2048]);
  });

  it("a refusal is asked again", async () => {
    server = await startFakeAnthropic({ script: [reply.refusal("I can't judge that."), yes] });
    const { result, events } = await runAgainst(server, (rt) => rt.judge(at(3), "the tests pass", {}));
    expect(result).toBe(true);
    expect(conversation(server.requests[1]!.body)).toEqual([
      { role: "user", content: QUESTION },
      { role: "assistant", content: [{ type: "text", text: "I can't judge that." }] },
      {
        role: "user",
        content: [
          {
            type: "text",
            text: correction('the model refused to answer (stop_reason "refusal") (it said "I can\'t judge that.")'),
          },
        ],
      },
    ]);
    expect(unexpected(events)).toEqual([["refusal", "reask", 1]]);
  });

  it("a call of a tool it was not offered gets an error result naming the one tool there is", async () => {
    server = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "read_file", input: { path: "report.txt" } }]), yes],
    });
    const { result } = await runAgainst(server, (rt) => rt.judge(at(3), "the tests pass", {}));
    expect(result).toBe(true);
    expect(conversation(server.requests[1]!.body)).toEqual([
      { role: "user", content: QUESTION },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "call-1", name: "read_file", input: { path: "report.txt" } }],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call-1", is_error: true, content: 'There is no tool "read_file" here.' },
          {
            type: "text",
            text: correction('the model called "read_file", which is not offered here: the only tool is "answer"'),
          },
        ],
      },
    ]);
  });

  it("fails after the re-asks with every answer quoted; each corrective turn builds on the last", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.text("I think yes, probably."),
        reply.toolUse([{ name: "answer", input: { answer: "maybe" } }]),
        reply.refusal(),
      ],
    });
    const { error, events } = await failingRun(server, (rt) => rt.judge(at(4, 2), "the tests pass", {}));
    expect(error.message).toBe(
      "examples/test-program.prose:4:2: The judgment failed: The model's judgment could not be read as yes or no after 3 answers: " +
        'answer 1: the model answered in text, not with the "answer" tool: "I think yes, probably."; ' +
        'answer 2: the "answer" tool was called with {"answer":"maybe"}, whose answer is not true or false; ' +
        'answer 3: the model refused to answer (stop_reason "refusal"). It was asked again 2 times (--reasks, RunOptions.reasks). (session "The judgment")',
    );
    expect(server.requests).toHaveLength(3);
    expect((server.requests[2]!.body?.messages ?? []).map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(unexpected(events)).toEqual([
      ["text", "reask", 1],
      ["shape", "reask", 2],
      ["refusal", "fail", 3],
    ]);
  });

  it("asks as many more times as RunOptions.reasks says", async () => {
    server = await startFakeAnthropic({ script: [reply.text("Hmm."), reply.text("Hmm."), reply.text("Hmm."), yes] });
    const { result } = await runAgainst(server, (rt) => rt.judge(at(3), "the tests pass", {}), { reasks: 3 });
    expect(result).toBe(true);
    expect(server.requests).toHaveLength(4);
  });

  it("every attempt is a model request the meter counts (maxCalls)", async () => {
    server = await startFakeAnthropic({ script: [reply.text("Hmm."), yes] });
    const { error } = await failingRun(server, (rt) => rt.judge(at(3), "the tests pass", {}), { maxCalls: 1 });
    expect(error.message).toContain("--max-calls");
    expect(server.requests).toHaveLength(1);
  });
});

describe("choices and extractions ask again too", () => {
  it("a choice answered outside its options", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "answer", input: { answer: "3. Later", reason: "r" } }]),
        reply.toolUse([{ name: "answer", input: { answer: "2. Wait", reason: "r" } }]),
      ],
    });
    const { result } = await runAgainst(server, (rt) => rt.choose(at(2), "what next", ["Ship it.", "Wait"], {}));
    expect(result).toBe(1);
    const last = conversation(server.requests[1]!.body) as { content: { type: string; text?: string }[] }[];
    expect(last[2]!.content[1]!.text).toBe(
      correction(
        'the "answer" tool was called with {"answer":"3. Later","reason":"r"}, whose answer is not one of the options',
        '{"answer": one of "1. Ship it.", "2. Wait", "reason": "<one sentence>"}',
      ),
    );
  });

  it("a list read from text, answered in prose", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.text("There are a few items in there."),
        reply.toolUse([{ name: "answer", input: { answer: ["tides", "storms"] } }]),
      ],
    });
    const { result, events } = await runAgainst(server, (rt) =>
      rt.list(at(5), "The report covers tides and then storms."),
    );
    expect(result).toEqual(["tides", "storms"]);
    const last = conversation(server.requests[1]!.body) as { content: { type: string; text?: string }[] }[];
    expect(last[2]!.content[0]!.text).toBe(
      correction(
        'the model answered in text, not with the "answer" tool: "There are a few items in there."',
        '{"answer": [the items, in order]}',
      ),
    );
    expect(unexpected(events)).toEqual([["text", "reask", 1]]);
  });

  it("a field the answer tool left out", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "answer", input: { value: "v2.1" } }]),
        reply.toolUse([{ name: "answer", input: { answer: "v2.1" } }]),
      ],
    });
    const { result } = await runAgainst(server, (rt) => rt.field(at(5), "We shipped v2.1 last week.", "version"));
    expect(result).toBe("v2.1");
    expect(server.requests).toHaveLength(2);
  });
});

describe("a session cut off at max_tokens continues", () => {
  const CONTINUE =
    "Your answer was cut off at the output limit. Continue it exactly where it stopped, without repeating anything.";

  it("cut once: the partial answer goes back as the assistant's turn, and the pieces are joined", async () => {
    server = await startFakeAnthropic({
      script: [reply.cut("The harbour was quiet until the st"), reply.text("orm came.")],
    });
    const journal = new MemoryJournal();
    const { result, events } = await runAgainst(server, (rt) => rt.session({ at: at(2), prompt: "Tell the story" }), {
      journal,
    });
    expect(result).toBe("The harbour was quiet until the storm came.");
    const sent = conversation(server.requests[1]!.body) as unknown[];
    expect(sent.slice(1)).toEqual([
      { role: "assistant", content: [{ type: "text", text: "The harbour was quiet until the st" }] },
      { role: "user", content: [{ type: "text", text: CONTINUE }] },
    ]);
    expect(sent[0]).toEqual((conversation(server.requests[0]!.body) as unknown[])[0]);
    expect(unexpected(events)).toEqual([["max-tokens", "continue", 1]]);
    expect(journal.steps.get("/session@2:1#0")).toMatchObject({ attempts: 2, value: result });
  });

  it("cut twice: three pieces joined, each continuation a turn of its own", async () => {
    server = await startFakeAnthropic({
      script: [reply.cut("One, "), reply.cut("two, "), reply.text("three.")],
    });
    const { result, events } = await runAgainst(server, (rt) => rt.session({ at: at(2), prompt: "Count" }));
    expect(result).toBe("One, two, three.");
    expect((conversation(server.requests[2]!.body) as { role: string }[]).map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(unexpected(events)).toEqual([
      ["max-tokens", "continue", 1],
      ["max-tokens", "continue", 2],
    ]);
  });

  it("cut before any text: nothing to send back, so the request to answer again joins the task's turn", async () => {
    server = await startFakeAnthropic({ script: [reply.cut(""), reply.text("Short answer.")] });
    const { result } = await runAgainst(server, (rt) => rt.session({ at: at(2), prompt: "Count" }));
    expect(result).toBe("Short answer.");
    const [first] = conversation(server.requests[0]!.body) as { role: string; content: unknown[] }[];
    expect(conversation(server.requests[1]!.body)).toEqual([
      {
        role: "user",
        content: [
          ...first!.content,
          {
            type: "text",
            text: "Your answer was cut off at the output limit before any text. Answer again, more briefly.",
          },
        ],
      },
    ]);
  });

  it("still cut off after the continuations: the step fails, naming the limit and the ways out", async () => {
    server = await startFakeAnthropic({ script: [reply.cut("a"), reply.cut("b")] });
    const { error, events } = await failingRun(server, (rt) => rt.session({ at: at(2), prompt: "Count" }), {
      continuations: 1,
      maxTokens: 100,
    });
    expect(error.message).toBe(
      'examples/test-program.prose:2:1: Count failed: The answer was still cut off at max_tokens (100) after 1 continuation (--continuations, RunOptions.continuations). Raise --max-tokens (RunOptions.maxTokens), or keep the text cut off with --on-truncation keep. (session "Count")',
    );
    expect(unexpected(events)).toEqual([
      ["max-tokens", "continue", 1],
      ["max-tokens", "fail", 2],
    ]);
  });

  it("onTruncation keep: the text so far is the result, marked in the events and the journal", async () => {
    server = await startFakeAnthropic({ script: [reply.cut("a"), reply.cut("b")] });
    const journal = new MemoryJournal();
    const { result, events } = await runAgainst(server, (rt) => rt.session({ at: at(2), prompt: "Count" }), {
      continuations: 1,
      onTruncation: "keep",
      journal,
    });
    expect(result).toBe("ab");
    expect(unexpected(events)).toEqual([
      ["max-tokens", "continue", 1],
      ["max-tokens", "keep", 2],
    ]);
    expect(events.find((event) => event.type === "session-end")).toMatchObject({ truncated: true });
    expect(journal.steps.get("/session@2:1#0")).toMatchObject({ truncated: true, attempts: 2 });
  });
});

describe("a session's other unexpected answers", () => {
  it("an answer cut off by the context window is not continued: it fails, or is kept when asked to", async () => {
    const full = {
      kind: "message",
      content: [{ type: "text", text: "Half" }],
      stopReason: "model_context_window_exceeded",
    } as const;
    server = await startFakeAnthropic({ script: [full, full] });
    const { error } = await failingRun(server, (rt) => rt.session({ at: at(2), prompt: "Go" }));
    expect(error.message).toContain(
      "Go failed: The answer was cut off: the conversation reached the model's context window.",
    );
    const { result } = await runAgainst(server, (rt) => rt.session({ at: at(2), prompt: "Go" }), {
      onTruncation: "keep",
    });
    expect(result).toBe("Half");
    expect(server.requests).toHaveLength(2);
  });

  it("a refusal fails the step with the reason named, never an empty result", async () => {
    server = await startFakeAnthropic({ script: [reply.refusal("I won't write that.")] });
    const { error, events } = await failingRun(server, (rt) => rt.session({ at: at(2), prompt: "Write it" }));
    expect(error.message).toBe(
      'examples/test-program.prose:2:1: Write it failed: The model refused to answer (stop_reason "refusal") (it said "I won\'t write that."). (session "Write it")',
    );
    expect(unexpected(events)).toEqual([["refusal", "fail", 1]]);
  });

  it("a refusal is caught by the program's try/catch like any failed step", async () => {
    server = await startFakeAnthropic({ script: [reply.refusal(), reply.text("Fallback plan.")] });
    const { result } = await runAgainst(server, async (rt) => {
      try {
        return await rt.session({ at: at(2), prompt: "Write it" });
      } catch (error) {
        return rt.session({ at: at(4), prompt: `Recover from: ${(error as Error).message}` });
      }
    });
    expect(result).toBe("Fallback plan.");
  });

  it("an empty answer fails the step, unless the agent says empty: allow", async () => {
    server = await startFakeAnthropic({ script: [reply.empty(), reply.text("  ")] });
    const { error, events } = await failingRun(server, (rt) => rt.session({ at: at(2), prompt: "Summarise" }));
    expect(error.message).toContain(
      "Summarise failed: The model's answer was empty. An agent whose sessions may answer with nothing says so with `empty: allow`.",
    );
    expect(unexpected(events)).toEqual([["empty", "fail", 1]]);
    const agent = { name: "writer", empty: "allow" } as const;
    const { result } = await runAgainst(server, (rt) => rt.session({ at: at(2), prompt: "Write the files", agent }));
    expect(result).toBe("  ");
  });

  it("an empty answer, asked again by retry:, completes when the next answer has text", async () => {
    server = await startFakeAnthropic({ script: [reply.empty(), reply.text("Done.")] });
    const { result } = await runAgainst(server, (rt) => rt.session({ at: at(2), prompt: "Summarise", retry: 1 }));
    expect(result).toBe("Done.");
  });

  it("a tool it was not offered gets an error result naming its tools, and the session goes on", async () => {
    server = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "launch_rockets", input: { count: 3 } }]), reply.text("I will not, then.")],
    });
    const { result, events } = await runAgainst(server, (rt) => rt.session({ at: at(2), prompt: "Go" }));
    expect(result).toBe("I will not, then.");
    const offered = (server.requests[0]!.body?.tools ?? []).map((tool) => tool.name);
    const results = (server.requests[1]!.body?.messages.at(-1)?.content ?? []) as Record<string, unknown>[];
    expect(results).toEqual([
      expect.objectContaining({
        type: "tool_result",
        is_error: true,
        content: `The tool launch_rockets is not available to this agent. Its tools are: ${offered.join(", ")}.`,
      }),
    ]);
    expect(offered.length).toBeGreaterThan(0);
    expect(unexpected(events)).toEqual([["unknown-tool", "tool-error", 1]]);
  });
});

describe("max_tokens of a session", () => {
  it("defaults to the model's output limit as the Models API reports it, asked once per model", async () => {
    server = await startFakeAnthropic({
      script: [reply.text("a"), reply.text("b")],
      models: { "claude-sonnet-5-5": { maxTokens: 64_000 } },
    });
    await runAgainst(server, async (rt) => [
      await rt.session({ at: at(1), prompt: "One" }),
      await rt.session({ at: at(2), prompt: "Two" }),
    ]);
    expect(server.requests.map((request) => request.body?.max_tokens)).toEqual([64_000, 64_000]);
    expect(server.modelLookups).toEqual(["claude-sonnet-5-5"]);
  });

  it("is 8,192 where the server does not say, and RunOptions.maxTokens wins over both", async () => {
    server = await startFakeAnthropic({
      script: [reply.text("a"), reply.text("b")],
      models: { "my-model": { maxTokens: 32_000 } },
    });
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "One", model: "unknown-model" }));
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "One", model: "my-model" }), { maxTokens: 500 });
    expect(server.requests.map((request) => request.body?.max_tokens)).toEqual([8192, 500]);
  });
});

describe("the output limit off the first request's path", () => {
  it("on Anthropic's own API, is read from prosec's table for a known model and asked of the Models API only for others", async () => {
    server = await startFakeAnthropic({
      script: [reply.text("a"), reply.text("b")],
      models: { "claude-sonnet-5-5": { maxTokens: 1_000 }, "claude-next-7": { maxTokens: 48_000 } },
    });
    const url = server.url;
    // Anthropic's own API as the SDK addresses it; the transport carries its requests to the fake.
    const client = new Anthropic({
      apiKey: "sk-ant-test",
      baseURL: "https://api.anthropic.com",
      maxRetries: 0,
      fetch: (input: string | URL | Request, init?: RequestInit) =>
        fetch(String(input).replace("https://api.anthropic.com", url), init),
    });
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "One" }), { client });
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "Two", model: "claude-next-7" }), { client });
    expect(server.requests.map((request) => request.body?.max_tokens)).toEqual([
      knownOutputLimits["claude-sonnet-5-5"],
      48_000,
    ]);
    expect(server.modelLookups).toEqual(["claude-next-7"]);
  });

  it("on a compatible server, is kept per server in the project's .prose/cache, so a later run does not ask", async () => {
    server = await startFakeAnthropic({
      script: [reply.text("a"), reply.text("b")],
      models: { "local-model": { maxTokens: 32_000 } },
    });
    const project = temporaryFolder("prosec-limits-");
    // A fresh client each run (its own transport), so nothing is kept in memory between them.
    const fresh = { fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, init) };
    const runIn = (runDir: string, model = "local-model") =>
      runAgainst(server!, (rt) => rt.session({ at: at(1), prompt: "One", model }), { ...fresh, runDir });
    await runIn(join(project, ".prose", "runs", "20260101-000000-aaaaaa"));
    await runIn(join(project, ".prose", "runs", "20260101-000001-bbbbbb"));
    expect(server.modelLookups).toEqual(["local-model"]);
    // A model the server's Models API does not know (404) gets 8,192, kept the same way.
    server.push(reply.text("d"), reply.text("e"));
    await runIn(join(project, ".prose", "runs", "20260101-000002-cccccc"), "unlisted-model");
    await runIn(join(project, ".prose", "runs", "20260101-000003-dddddd"), "unlisted-model");
    expect(server.modelLookups).toEqual(["local-model", "unlisted-model"]);
    expect(server.requests.slice(-2).map((request) => request.body?.max_tokens)).toEqual([8192, 8192]);
    const kept = JSON.parse(readFileSync(join(project, ".prose", "cache", "model-limits.json"), "utf8"));
    expect(Object.keys(kept)).toEqual([server.url]);
    expect(kept[server.url]["local-model"].maxTokens).toBe(32_000);
    // A run folder outside a project's .prose/runs keeps nothing: it asks again.
    server.push(reply.text("c"));
    await runIn(join(temporaryFolder("prosec-limits-"), "elsewhere"));
    expect(server.modelLookups).toEqual(["local-model", "unlisted-model", "local-model"]);
    expect(server.requests.map((request) => request.body?.max_tokens)).toEqual([32_000, 32_000, 8192, 8192, 32_000]);
  });
});
