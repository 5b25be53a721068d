/**
 * Model fallback (runtime/model/fallback.ts): a compiled program whose model is overloaded, rate-limited
 * or unknown goes on with the next model of the chain the run was given; usage, cost, events and the
 * journal name the model that answered; budgets count a chain at its most expensive model; a request
 * to another model is laid out for that model's prompt cache.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BudgetExceeded, type RunEvent, type RunOptions } from "../../runtime/index.js";
import { fallbackChains, FallbackError, ModelChains, parseFallback } from "../../runtime/model/fallback.js";
import { resolveModel } from "../../runtime/model/models.js";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { loadProgram, TEST_API_KEY, temporaryFolder } from "../e2e/harness.js";
import { at, runAgainst } from "./helpers.js";

const SONNET = "claude-sonnet-5-5";
const OPUS = "claude-opus-5-5";
const HAIKU = "claude-haiku-5-5";

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server on which the models named fail with `failure`, and the others answer with their name. */
async function serve(failing: Readonly<Record<string, () => FakeReply>>): Promise<FakeServer> {
  const server = await startFakeAnthropic({
    respond: (request: FakeRequest) =>
      failing[request.body!.model]?.() ??
      reply.text(`${request.body!.model} answered`, { usage: { input_tokens: 10, output_tokens: 1000 } }),
  });
  servers.push(server);
  return server;
}

const overloaded = (): FakeReply => reply.error(529, { retryAfterSeconds: 0.01 });
const notFound = (): FakeReply => ({
  kind: "error",
  status: 404,
  body: { type: "error", error: { type: "not_found_error", message: "model: claude-sonnet-5-5" } },
});

const ONE_SESSION = 'output answer = session "Answer the question"\n';

function runOptions(server: FakeServer, extra: RunOptions = {}): RunOptions & { events: RunEvent[] } {
  const events: RunEvent[] = [];
  return {
    apiKey: TEST_API_KEY,
    baseURL: server.url,
    cwd: temporaryFolder("prosec-fallback-"),
    maxRetries: 1,
    onEvent: (event) => events.push(event),
    ...extra,
    events,
  };
}

describe("model fallback", () => {
  it("moves an overloaded model's call to the next of its chain, after the SDK's retries, and says who answered", async () => {
    const server = await serve({ [SONNET]: overloaded });
    const program = await loadProgram(ONE_SESSION, "one.prose");
    const cwd = temporaryFolder("prosec-fallback-");
    const runDir = join(cwd, ".prose", "runs", "run");
    const options = runOptions(server, { cwd, runDir, fallback: { sonnet: ["opus", "haiku"] } });
    const outputs = await program.run({}, options);
    expect(outputs).toEqual({ answer: `${OPUS} answered` });
    // The SDK retried sonnet once (maxRetries: 1), then opus answered; haiku was never asked.
    expect(server.requests.map((request) => request.body!.model)).toEqual([SONNET, SONNET, OPUS]);
    expect(options.events).toContainEqual(
      expect.objectContaining({
        type: "fallback",
        from: SONNET,
        to: OPUS,
        label: "Answer the question",
        at: { line: 1, column: 17 },
      }),
    );
    const end = options.events.find((event) => event.type === "session-end");
    expect(end?.type === "session-end" && end.usage.map((usage) => usage.model)).toEqual([OPUS]);
    const journal = readFileSync(join(runDir, "journal.jsonl"), "utf8");
    expect(journal).toContain(`"model":"${OPUS}"`);
    expect(journal).not.toContain(`"model":"${SONNET}"`);
    // The trace records both requests, each with its model, the first with its error.
    const trace = readFileSync(join(runDir, "trace", "steps.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.includes('"e":"request"'))
      .map((line) => JSON.parse(line) as { model: string; error?: string });
    expect(trace.map((request) => [request.model, request.error !== undefined])).toEqual([
      [SONNET, true],
      [OPUS, false],
    ]);
  });

  it("moves on from a model the server does not know (404), and from a rate limit (429)", async () => {
    const server = await serve({ [SONNET]: notFound, [OPUS]: () => reply.error(429, { retryAfterSeconds: 0.01 }) });
    const options = runOptions(server, { fallback: { sonnet: ["opus", "haiku"] } });
    const { result } = await runAgainst(server, (rt) => rt.session({ at: at(2), prompt: "go" }), options);
    expect(result).toBe(`${HAIKU} answered`);
    // A 404 is not retried by the SDK; a 429 is.
    expect(server.requests.map((request) => request.body!.model)).toEqual([SONNET, OPUS, OPUS, HAIKU]);
    const moves = options.events.filter((event) => event.type === "fallback");
    expect(moves.map((event) => event.type === "fallback" && [event.from, event.to, event.reason])).toEqual([
      [SONNET, OPUS, "not found: model: claude-sonnet-5-5"],
      [OPUS, HAIKU, "rate-limited: fake 429"],
    ]);
  });

  it("fails with the last model's error when the whole chain is overloaded, as without a chain", async () => {
    const server = await serve({ [SONNET]: overloaded, [OPUS]: overloaded });
    const program = await loadProgram(ONE_SESSION, "one.prose");
    const error = await program
      .run({}, runOptions(server, { fallback: { sonnet: ["opus"] } }))
      .catch((caught: unknown) => caught);
    expect((error as Error).name).toBe("ProseError");
    expect((error as Error).message).toMatch(
      /^one\.prose:1:17: Answer the question failed: 529 .*\(session "Answer the question"\)$/,
    );
    expect(server.requests.map((request) => request.body!.model)).toEqual([SONNET, SONNET, OPUS, OPUS]);
  });

  it("does not fall back on an error another model would share (a bad request)", async () => {
    const server = await serve({ [SONNET]: () => reply.error(400, { message: "bad" }) });
    const options = runOptions(server, { fallback: { sonnet: ["opus"] } });
    await expect(runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "go" }), options)).rejects.toThrow(/400/);
    expect(server.requests).toHaveLength(1);
  });

  it("falls back from a stream cut by overloaded_error once its retries are spent", async () => {
    const server = await serve({ [SONNET]: () => reply.streamError("Half of", 4) });
    const options = runOptions(server, { maxRetries: 0, fallback: { sonnet: ["haiku"] } });
    const { result } = await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "go" }), options);
    expect(result).toBe(`${HAIKU} answered`);
    const kinds = options.events
      .map((event) => event.type)
      .filter((type) => type === "abandoned" || type === "fallback");
    expect(kinds).toEqual(["abandoned", "fallback"]);
  });

  it("counts a chain at its most expensive model before the run, and the model that answers during it", async () => {
    const server = await serve({ [SONNET]: overloaded });
    const program = await loadProgram(ONE_SESSION, "one.prose");
    const prices = { sonnet: { input: 0, output: 100 }, opus: { input: 0, output: 1000 } };
    const limits = { budget: 0.5, maxTokens: 1000, prices };
    // Alone, sonnet's bound ($0.10) is within the budget; with opus behind it, the bound is opus's ($1).
    await expect(program.run({}, runOptions(server, limits))).rejects.toThrow(/529/);
    const refused = await program
      .run({}, runOptions(server, { ...limits, fallback: { sonnet: ["opus"] } }))
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(BudgetExceeded);
    expect((refused as Error).message).toMatch(
      /The program's bound, about \$1\.00 \(1 model calls at most\), is over the budget of \$0\.50\./,
    );
    // Started anyway: the request to opus is reserved at opus's price, which the budget cannot pay.
    const before = server.requests.length;
    const stopped = await program
      .run({}, runOptions(server, { ...limits, fallback: { sonnet: ["opus"] }, startOverBound: true }))
      .catch((caught: unknown) => caught);
    expect(stopped).toBeInstanceOf(BudgetExceeded);
    expect((stopped as Error).message).toMatch(/The next model request could cost up to \$1\.0000/);
    expect(server.requests.slice(before).map((request) => request.body!.model)).toEqual([SONNET, SONNET]);
  });

  it("lays out each model's request for its own prompt cache", async () => {
    const server = await serve({ [SONNET]: overloaded });
    const options = runOptions(server, { maxRetries: 0, fallback: { sonnet: ["opus"] } });
    // About 3,000 tokens of context: over sonnet's minimum cacheable prefix (2,048), under opus's (4,096).
    const context = { notes: "a note ".repeat(1700) };
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "go", context }), options);
    const marked = (request: FakeRequest): boolean => JSON.stringify(request.body).includes('"cache_control"');
    expect(server.requests.map((request) => [request.body!.model, marked(request)])).toEqual([
      [SONNET, true],
      [OPUS, false],
    ]);
  });

  it("keeps max_tokens within the fallback model's output limit", async () => {
    const server = await startFakeAnthropic({
      models: { [SONNET]: { maxTokens: 64000 }, [HAIKU]: { maxTokens: 16000 } },
      respond: (request) => (request.body!.model === SONNET ? overloaded() : reply.text("ok")),
    });
    servers.push(server);
    const options = runOptions(server, { maxRetries: 0, fallback: { sonnet: ["haiku"] } });
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "go" }), options);
    expect(server.requests.map((request) => request.body!.max_tokens)).toEqual([64000, 16000]);
  });
});

describe("fallback chains", () => {
  it("reads --fallback and PROSEC_FALLBACK, the options' chain winning for a model named twice", () => {
    expect(parseFallback("sonnet=opus,haiku")).toEqual({ sonnet: ["opus", "haiku"] });
    expect(parseFallback(" sonnet = opus , haiku ; opus=my-model ;")).toEqual({
      sonnet: ["opus", "haiku"],
      opus: ["my-model"],
    });
    const env = { PROSEC_FALLBACK: "sonnet=haiku;opus=sonnet" };
    expect(fallbackChains({ sonnet: ["opus"] }, env)).toEqual({ sonnet: ["opus"], opus: ["sonnet"] });
    for (const wrong of ["sonnet", "sonnet=", "sonnet=opus,,haiku", "=opus", "sonnet=opus haiku"])
      expect(() => parseFallback(wrong), wrong).toThrow(FallbackError);
    expect(() => parseFallback("sonnet")).toThrow(
      'write model=next,next (e.g. sonnet=opus,haiku), chains separated by ";"',
    );
  });

  it("resolves names as the model table does, and prices a chain at its most expensive member", () => {
    const resolve = (name: string): string => resolveModel(name, { fast: "claude-haiku-5-5" }, {});
    const chains = new ModelChains({ sonnet: ["opus", "fast", "opus"] }, resolve);
    expect(chains.of(SONNET)).toEqual([SONNET, OPUS, HAIKU]);
    expect(chains.of(OPUS)).toEqual([OPUS]);
    const prices = chains.boundPrices({
      sonnet: { input: 3, output: 15 },
      opus: { input: 5, output: 25 },
      haiku: { input: 1, output: 5 },
    });
    expect(prices[SONNET]).toEqual({ input: 5, output: 25 });
    expect(
      chains.unpricedMembers(SONNET, { sonnet: { input: 3, output: 15 }, opus: { input: 5, output: 25 } }),
    ).toEqual([HAIKU]);
    expect(chains.describe()).toEqual([`${SONNET} → ${OPUS}, ${HAIKU}`]);
  });

  it("a chain that is not a list of names is the run's error", async () => {
    const server = await serve({});
    const fallback = { sonnet: "opus" } as unknown as RunOptions["fallback"];
    await expect(
      runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "go" }), { ...(fallback && { fallback }) }),
    ).rejects.toThrow(
      'RunOptions.fallback: the chain of sonnet must be a list of model names, e.g. { sonnet: ["opus", "haiku"] }.',
    );
    expect(server.requests).toHaveLength(0);
  });

  it("a mistake in PROSEC_FALLBACK is the run's error, naming the variable", async () => {
    const server = await serve({});
    const previous = process.env["PROSEC_FALLBACK"];
    process.env["PROSEC_FALLBACK"] = "sonnet";
    try {
      await expect(runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "go" }))).rejects.toThrow(
        /PROSEC_FALLBACK: cannot read the fallback chain "sonnet"/,
      );
    } finally {
      if (previous === undefined) delete process.env["PROSEC_FALLBACK"];
      else process.env["PROSEC_FALLBACK"] = previous;
    }
  });
});
