/**
 * Prompt caching: the runtime lays requests out stable-first and marks breakpoints where prefixes
 * repeat; the fake server accounts usage as the real API does (tokens from size, cache writes and
 * reads per breakpoint, a minimum length, a TTL). Both sides are exercised through the real SDK.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { minimumCacheableTokens } from "../../runtime/model/caching.js";
import { costOf, listPrices } from "../../runtime/model/prices.js";
import type { AgentDefinition, RunEvent, Usage } from "../../runtime/types.js";
import { reply, startFakeAnthropic, type FakeRequest, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

/** Text of about `tokens` tokens (four characters each), distinct per `seed`. */
function filler(tokens: number, seed = "x"): string {
  return `${seed} `.repeat(Math.ceil((tokens * 4) / (seed.length + 1))).slice(0, tokens * 4);
}

function breakpoints(request: FakeRequest): number {
  const body = request.body!;
  const blocks = [
    ...(body.tools ?? []),
    ...(Array.isArray(body.system) ? body.system : []),
    ...body.messages.flatMap((message) => (Array.isArray(message.content) ? message.content : [])),
  ];
  return blocks.filter((block) => (block as { cache_control?: unknown }).cache_control !== undefined).length;
}

function usages(events: readonly RunEvent[]): Usage[] {
  return events.flatMap((event) => (event.type === "session-end" ? event.usage : []));
}

describe("the fake server's usage accounting", () => {
  const ask = (client: Anthropic, system: Anthropic.TextBlockParam[], text = "hi", model = "claude-opus-4-1") =>
    client.messages.create({ model, max_tokens: 10, system, messages: [{ role: "user", content: text }] });

  it("estimates input tokens from the request's size and output tokens from the reply's", async () => {
    server = await startFakeAnthropic({ respond: () => reply.text("a reply of forty characters, give or ta") });
    const client = new Anthropic({ apiKey: "sk-ant-fake", baseURL: server.url, maxRetries: 0 });
    const small = await ask(client, [{ type: "text", text: "short" }]);
    const large = await ask(client, [{ type: "text", text: filler(500) }]);
    expect(small.usage.input_tokens).toBe(Math.ceil("short".length / 4) + 1);
    expect(large.usage.input_tokens).toBe(500 + 1);
    expect(large.usage.output_tokens).toBe(10);
  });

  it("writes a breakpoint's prefix once, reads it after, and caches nothing below the model's minimum", async () => {
    let now = 0;
    server = await startFakeAnthropic({ respond: () => reply.text("ok"), now: () => now });
    const client = new Anthropic({ apiKey: "sk-ant-fake", baseURL: server.url, maxRetries: 0 });
    const long = [{ type: "text" as const, text: filler(1500), cache_control: { type: "ephemeral" as const } }];
    const first = await ask(client, long, "one");
    const second = await ask(client, long, "two");
    expect([
      first.usage.cache_creation_input_tokens,
      first.usage.cache_read_input_tokens,
      first.usage.input_tokens,
    ]).toEqual([1500, 0, 1]);
    expect([
      second.usage.cache_creation_input_tokens,
      second.usage.cache_read_input_tokens,
      second.usage.input_tokens,
    ]).toEqual([0, 1500, 1]);
    // Opus 4.1 caches from 1,024 tokens; Haiku 4.5 only from 4,096.
    const haiku = await ask(client, long, "six", "claude-haiku-4-5");
    expect([
      haiku.usage.cache_creation_input_tokens,
      haiku.usage.cache_read_input_tokens,
      haiku.usage.input_tokens,
    ]).toEqual([0, 0, 1501]);
    // Five minutes after its last use the entry is gone.
    now += 5 * 60_000;
    const later = await ask(client, long, "ten");
    expect([later.usage.cache_creation_input_tokens, later.usage.cache_read_input_tokens]).toEqual([1500, 0]);
  });

  it("finds a cached prefix up to 20 blocks before a breakpoint, and refuses a fifth breakpoint", async () => {
    server = await startFakeAnthropic({ respond: () => reply.text("ok") });
    const client = new Anthropic({ apiKey: "sk-ant-fake", baseURL: server.url, maxRetries: 0 });
    const marked = { type: "ephemeral" as const };
    await ask(client, [{ type: "text", text: filler(1500), cache_control: marked }]);
    const moved = await ask(client, [
      { type: "text", text: filler(1500) },
      { type: "text", text: filler(100, "y"), cache_control: marked },
    ]);
    expect([moved.usage.cache_read_input_tokens, moved.usage.cache_creation_input_tokens]).toEqual([1500, 100]);
    const five = Array.from({ length: 5 }, (_, index) => ({
      type: "text" as const,
      text: filler(300, `b${index}`),
      cache_control: marked,
    }));
    await expect(ask(client, five)).rejects.toThrow(/maximum of 4 blocks with cache_control/);
  });
});

describe("prompt caching in the runtime", () => {
  // Without tools an agent answers in one turn: its conversation's end is no breakpoint.
  const noTools = { read: [], write: [], bash: "deny", network: "deny" } as const;
  const analyst: AgentDefinition = {
    name: "analyst",
    prompt: `You analyse markets.\n${filler(2500, "policy")}`,
    permissions: noTools,
  };

  it("marks the agent's system prompt, so its later sessions read it from the cache", async () => {
    server = await startFakeAnthropic({ respond: () => reply.text("done") });
    const { events } = await runAgainst(server, async (rt) => {
      for (const topic of ["tin", "copper", "zinc"])
        await rt.session({ at: at(1), agent: analyst, prompt: `Analyse ${topic}` });
      return null;
    });
    expect(server.requests.map(breakpoints)).toEqual([1, 1, 1]);
    const [first, second, third] = usages(events);
    expect(first!.cacheWriteTokens).toBeGreaterThan(minimumCacheableTokens("claude-sonnet-5-5"));
    expect(first!.cacheReadTokens).toBeUndefined();
    expect(second!.cacheReadTokens).toBe(first!.cacheWriteTokens);
    expect(third!.cacheReadTokens).toBe(first!.cacheWriteTokens);
    expect(second!.inputTokens).toBeLessThan(20);
    const end = events.find((event) => event.type === "run-end");
    expect(end?.type === "run-end" && end.usage[0]).toEqual(
      expect.objectContaining({
        cacheWriteTokens: first!.cacheWriteTokens,
        cacheReadTokens: 2 * first!.cacheWriteTokens!,
      }),
    );
  });

  it("shares a long context across parallel branches: the context is a block of its own before the task", async () => {
    server = await startFakeAnthropic({ respond: () => reply.text("done") });
    const report = filler(3000, "finding");
    const { events } = await runAgainst(
      server,
      async (rt) =>
        rt.parallel(
          at(1),
          {},
          ["legal", "finance", "ops"].map(
            (angle) => async () =>
              rt.session({
                at: at(2),
                prompt: `Review from the ${angle} angle`,
                context: { report },
                permissions: noTools,
              }),
          ),
        ),
      { concurrency: 1 },
    );
    const content = server.requests[0]!.body!.messages[0]!.content as Array<{ text: string; cache_control?: unknown }>;
    expect(content.map((block) => [block.text.split("\n")[0], block.cache_control !== undefined])).toEqual([
      ["## Context", true],
      ["Review from the legal angle", false],
    ]);
    const [first, ...rest] = usages(events);
    expect(first!.cacheWriteTokens).toBeGreaterThan(3000);
    for (const usage of rest) expect(usage.cacheReadTokens).toBe(first!.cacheWriteTokens);
  });

  it("a context that extends an earlier one reads the earlier one's prefix: each binding is a section of its own", async () => {
    server = await startFakeAnthropic({ respond: () => reply.text("done") });
    const plan = filler(2500, "plan");
    const { events } = await runAgainst(server, async (rt) => {
      await rt.session({ at: at(1), prompt: "Outline", context: { plan }, permissions: noTools });
      return rt.session({
        at: at(2),
        prompt: "Draft",
        context: { plan, outline: filler(400, "outline") },
        permissions: noTools,
      });
    });
    const [first, second] = usages(events);
    expect(second!.cacheReadTokens).toBe(first!.cacheWriteTokens);
    expect(second!.cacheWriteTokens).toBeGreaterThanOrEqual(400);
  });

  it("puts the trail after the stable parts and before the task, an entry a block: a growing trail reads the earlier request's prefix", async () => {
    const results = [filler(2500, "survey"), filler(300, "deeper"), "done"];
    server = await startFakeAnthropic({ respond: () => reply.text(results.shift() ?? "done") });
    const { events } = await runAgainst(server, async (rt) => {
      await rt.session({ at: at(1), prompt: "Survey", unbound: true, permissions: noTools });
      await rt.session({ at: at(2), prompt: "Deepen", unbound: true, permissions: noTools });
      return rt.session({ at: at(3), prompt: "Conclude", permissions: noTools });
    });
    const layout = (index: number) =>
      (server!.requests[index]!.body!.messages[0]!.content as Array<{ text: string; cache_control?: unknown }>).map(
        (block) => [block.text.split("\n")[0], block.cache_control !== undefined],
      );
    expect(layout(1)).toEqual([
      ["## Earlier results (oldest first)", true],
      ["## Your task", false],
    ]);
    expect(layout(2)).toEqual([
      ["## Earlier results (oldest first)", false],
      ["### Deepen", true],
      ["## Your task", false],
    ]);
    const [, second, third] = usages(events);
    expect(second!.cacheWriteTokens).toBeGreaterThan(2500);
    expect(third!.cacheReadTokens).toBe(second!.cacheWriteTokens);
  });

  it("sends no breakpoint where the prefix is below the model's minimum, and none when caching is off", async () => {
    server = await startFakeAnthropic({ respond: () => reply.text("done") });
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "A short task", context: { note: "short" } }));
    await runAgainst(server, (rt) => rt.session({ at: at(1), agent: analyst, prompt: "A task" }), {
      promptCaching: false,
    });
    expect(server.requests.map(breakpoints)).toEqual([0, 0]);
    expect(server.requests[1]!.body!.system).toEqual([
      { type: "text", text: expect.stringContaining("You analyse markets.") },
    ]);
  });

  it("in a tool-use loop, marks the conversation's end, which the next turn reads; an agent that used tools marks its next session's first turn; never more than four breakpoints", async () => {
    const writes = (turn: number) =>
      reply.toolUse([
        { name: "write_file", input: { path: `notes-${turn}.md`, content: filler(1200, `turn${turn}`) } },
      ]);
    server = await startFakeAnthropic({ script: [writes(1), writes(2), reply.text("done"), reply.text("done again")] });
    const memoryAgent: AgentDefinition = { name: "analyst", prompt: analyst.prompt!, persist: true };
    const context = { brief: filler(2500, "brief"), sources: filler(300, "source") };
    const { events } = await runAgainst(server, async (rt) => {
      await rt.resume(memoryAgent, { at: at(1), prompt: "Write notes", context });
      return rt.resume(memoryAgent, { at: at(2), prompt: "Write more notes", context });
    });
    // The system prompt, the memory, the context's last section; from the second turn on, the
    // conversation's end; and for the agent's next session, its first turn's end too.
    expect(server.requests.map(breakpoints)).toEqual([3, 4, 4, 4]);
    const [first, second, third] = usages(events);
    expect(second!.cacheReadTokens).toBe(first!.cacheWriteTokens);
    expect(third!.cacheReadTokens).toBe(second!.cacheReadTokens! + second!.cacheWriteTokens!);
  });
});

describe("the cost of cached tokens", () => {
  it("counts cache writes at 1.25x and cache reads at 0.1x the input price", () => {
    const usage: Usage[] = [
      {
        model: "claude-sonnet-5-5",
        inputTokens: 1_000_000,
        outputTokens: 0,
        cacheWriteTokens: 1_000_000,
        cacheReadTokens: 1_000_000,
      },
    ];
    expect(costOf(usage, listPrices).dollars).toBeCloseTo(3 + 3.75 + 0.3, 10);
  });
});
