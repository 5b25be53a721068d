/**
 * Budgets: a compiled program run with `budget` / `maxCalls` against the fake Messages API. Prices
 * are set so that only output costs ($100 per million tokens) and every reply is 1,000 tokens ($0.10),
 * with `maxTokens: 1000`: a request's worst case is then $0.10 too.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BudgetExceeded } from "../../runtime/index.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { loadProgram, TEST_API_KEY, temporaryFolder } from "../e2e/harness.js";

const prices = { "claude-sonnet-5-5": { input: 0, output: 100 } };
const thousandTokens = "word ".repeat(800);

let server: FakeServer;
afterEach(async () => server?.close());

async function serve(latencyMs = 0): Promise<FakeServer> {
  server = await startFakeAnthropic({ respond: () => reply.text(thousandTokens), latencyMs });
  return server;
}

const options = (extra: object = {}) => ({
  apiKey: TEST_API_KEY,
  baseURL: server.url,
  cwd: temporaryFolder("prosec-budget-"),
  maxRetries: 0,
  maxTokens: 1000,
  prices,
  ...extra,
});

const threeSessions = 'let a = session "One"\nlet b = session "Two"\noutput c = session "Three"\n';

async function failure(promise: Promise<unknown>): Promise<BudgetExceeded> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BudgetExceeded);
  return error as BudgetExceeded;
}

describe("a run with a budget", () => {
  it("refuses to start when the bound with these inputs is over the budget, before any request", async () => {
    await serve();
    const program = await loadProgram(threeSessions, "three.prose");
    const error = await failure(program.run({}, options({ budget: 0.25 })));
    expect(error.message).toMatch(
      /^three\.prose: The program's bound, about \$0\.3\d \(3 model calls at most\), is over the budget of \$0\.25\.$/,
    );
    // What lets it go on, for the caller to say in its own words (prosec run: --yes); no option names in the message.
    expect(error.remedy).toBe("start-over-bound");
    expect(error.message).not.toMatch(/RunOptions|--yes/);
    expect(server.requests).toHaveLength(0);
  });

  it("admission counts a session's listed skills in the bound", async () => {
    await serve();
    const inputPrices = { prices: { "claude-sonnet-5-5": { input: 100, output: 0 } }, budget: 0.01 };
    const boundOf = async (source: string, name: string): Promise<number> => {
      const error = await failure((await loadProgram(source, name)).run({}, options(inputPrices)));
      expect(error.remedy).toBe("start-over-bound");
      return Number(/about \$(\d+\.\d+)/.exec(error.message)![1]);
    };
    const plain = await boundOf(
      'agent reviewer:\n  model: sonnet\noutput a = session: reviewer\n  prompt: "Review"\n',
      "plain.prose",
    );
    const skilled = await boundOf(
      'agent reviewer:\n  skills: ["code-review"]\noutput a = session: reviewer\n  prompt: "Review"\n',
      "skilled.prose",
    );
    // 540 input tokens (one listed skill and read_skill) at $100 a million.
    expect(skilled - plain).toBeCloseTo(0.054, 3);
    expect(server.requests).toHaveLength(0);
  });

  it("says a budget of a tenth of a cent as written, $0.001", async () => {
    await serve();
    const program = await loadProgram(threeSessions, "three.prose");
    const error = await failure(program.run({}, options({ budget: 0.001 })));
    expect(error.reason).toMatch(/is over the budget of \$0\.001\.$/);
    expect(server.requests).toHaveLength(0);
  });

  it("started anyway, stops before the request that could cross the budget", async () => {
    await serve();
    const program = await loadProgram(threeSessions, "three.prose");
    const error = await failure(program.run({}, options({ budget: 0.25, startOverBound: true })));
    // $0.10 spent per reply: the third request's worst case ($0.10) would take $0.20 past $0.25.
    expect(server.requests).toHaveLength(2);
    expect(error.reason).toMatch(
      /could cost up to \$0\.1000; with \$0\.2\d+ spent that could exceed the budget of \$0\.25/,
    );
    expect(error.remedy).toBe("larger-budget");
  });

  it("counts the requests in flight: they finish, and the one that could cross is never sent", async () => {
    await serve(150);
    const program = await loadProgram(
      'parallel:\n  a = session "A"\n  b = session "B"\n  c = session "C"\n',
      "wide.prose",
    );
    await failure(program.run({}, options({ budget: 0.25, startOverBound: true, concurrency: 3 })));
    expect(server.requests.map((request) => request.state)).toEqual(["answered", "answered"]);
  });

  it("with --max-calls: refused when the bound has more calls, stopped at the limit when started anyway", async () => {
    await serve();
    const program = await loadProgram(threeSessions, "three.prose");
    expect((await failure(program.run({}, options({ maxCalls: 2 })))).reason).toContain(
      "3 model calls, is over the limit of 2 model calls.",
    );
    expect(server.requests).toHaveLength(0);
    expect((await failure(program.run({}, options({ maxCalls: 2, startOverBound: true })))).reason).toContain(
      "made 2 of its 2 model requests",
    );
    expect(server.requests).toHaveLength(2);
  });

  it("refuses a budget for a model without a price, unless one is given", async () => {
    await serve();
    const program = await loadProgram('session "Hi"\n', "local.prose");
    const error = await failure(
      program.run({}, { ...options({ budget: 5 }), prices: undefined, models: { sonnet: "my-local-model" } }),
    );
    expect(error.reason).toContain("no price for my-local-model");
    expect(server.requests).toHaveLength(0);
    await program.run(
      {},
      {
        ...options({ budget: 5 }),
        prices: { "my-local-model": { input: 1, output: 1 } },
        models: { sonnet: "my-local-model" },
      },
    );
    expect(server.requests).toHaveLength(1);
  });

  it("starts a run whose bound depends on what it reads; the meter enforces the budget", async () => {
    server = await startFakeAnthropic({
      respond: (request) => reply.text(request.index === 0 ? "- a\n- b\n- c\n- d" : thousandTokens),
    });
    const program = await loadProgram(
      'let parts = session "List the parts"\nfor part in parts:\n  session "Build {part}"\n',
      "parts.prose",
    );
    await failure(program.run({}, options({ budget: 0.25 })));
    // The list cost nothing to speak of; two builds at $0.10 each, then the third could cross.
    expect(server.requests).toHaveLength(3);
  });

  it("keeps what a durable run spent: a resumed run's budget is the run's total", async () => {
    await serve();
    const program = await loadProgram(threeSessions, "durable.prose");
    const runDir = join(temporaryFolder("prosec-budget-run-"), "run");
    await failure(program.run({}, options({ runDir, budget: 0.25, startOverBound: true })));
    expect(server.requests).toHaveLength(2);
    const spent = JSON.parse(readFileSync(join(runDir, "spent.json"), "utf8")) as { dollars: number; calls: number };
    expect(spent.calls).toBe(2);
    expect(spent.dollars).toBeCloseTo(0.2, 2);
    // The same budget again: what was spent counts, so the next request is refused at once.
    await failure(program.run({}, options({ runDir, resume: true, budget: 0.25, startOverBound: true })));
    expect(server.requests).toHaveLength(2);
    // A larger one: the two finished sessions are replayed, one request is made.
    const outputs = await program.run({}, options({ runDir, resume: true, budget: 0.5, startOverBound: true }));
    expect(outputs["c"]).toBe(thousandTokens);
    expect(server.requests).toHaveLength(3);
    expect((JSON.parse(readFileSync(join(runDir, "spent.json"), "utf8")) as { calls: number }).calls).toBe(3);
    expect(existsSync(join(runDir, ".lock"))).toBe(false);
  });

  it("fits a request's default max_tokens (the model's 128,000) to its share of the budget", async () => {
    // As Anthropic's API: the default model may answer 128,000 tokens, $1.92 of output at list prices.
    server = await startFakeAnthropic({
      respond: () => reply.text("A short answer."),
      models: { "claude-sonnet-5-5": { maxTokens: 128_000 } },
    });
    const program = await loadProgram(
      'parallel:\n  a = session "A"\n  b = session "B"\n  c = session "C"\noutput d = session "D"\n',
      "fits.prose",
    );
    const outputs = await program.run(
      {},
      options({ budget: 1, concurrency: 4, maxTokens: undefined, prices: undefined, promptCaching: false }),
    );
    expect(outputs["d"]).toBe("A short answer.");
    const asked = server.requests.map((request) => request.body!.max_tokens);
    expect(asked).toHaveLength(4);
    // Each asks for at most a quarter (concurrency 4) of what is left at $15 a million: the first
    // under 16,667 tokens, the next ones less as the first ones' reservations are taken off.
    expect(asked[0]).toBeGreaterThan(16_000);
    for (const tokens of asked) {
      expect(tokens).toBeGreaterThan(8_000);
      expect(tokens).toBeLessThanOrEqual(16_666);
    }
    // Whatever the answers, the requests in flight together could not cross the budget.
    expect(asked.slice(0, 3).reduce((sum, tokens) => sum + tokens, 0) * 15e-6).toBeLessThan(1);
  });

  it("keeps a max_tokens the run chose: one that cannot fit stops the run before it is sent", async () => {
    server = await startFakeAnthropic({
      respond: () => reply.text("A short answer."),
      models: { "claude-sonnet-5-5": { maxTokens: 128_000 } },
    });
    const program = await loadProgram('output a = session "A"\n', "chosen.prose");
    const error = await failure(
      program.run({}, options({ budget: 1, maxTokens: 128_000, prices: undefined, promptCaching: false })),
    );
    expect(error.reason).toMatch(/could cost up to \$1\.92\d\d; with \$0\.0000 spent/);
    expect(server.requests).toHaveLength(0);
  });

  it("charges a cancelled branch's aborted request, which reported no usage, its reserved worst case", async () => {
    let slowArrived: () => void = () => {};
    const slow = new Promise<void>((resolve) => (slowArrived = resolve));
    server = await startFakeAnthropic({
      respond: async (request) => {
        if (JSON.stringify(request.body?.messages).includes("slow")) {
          slowArrived();
          return reply.hang();
        }
        await slow;
        return reply.text(thousandTokens);
      },
    });
    const program = await loadProgram(
      'parallel ("first"):\n  a = session "fast"\n  b = session "slow"\noutput a = a\n',
      "race.prose",
    );
    const runDir = join(temporaryFolder("prosec-budget-run-"), "run");
    await program.run({}, options({ runDir, budget: 1, startOverBound: true, concurrency: 2 }));
    // The run ends once the loser is cancelled; its connection's close may reach the server a moment later.
    await vi.waitFor(() =>
      expect(server.requests.map((request) => request.state).sort()).toEqual(["aborted", "answered"]),
    );
    const spent = JSON.parse(readFileSync(join(runDir, "spent.json"), "utf8")) as { dollars: number; calls: number };
    // $0.10 for the answer, and the aborted request's worst case ($0.10): the server may have billed it.
    expect(spent.dollars).toBeCloseTo(0.2, 3);
  });
});
