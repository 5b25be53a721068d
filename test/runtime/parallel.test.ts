import { afterEach, describe, expect, it } from "vitest";
import { MemoryJournal } from "../../runtime/durable/journal.js";
import {
  lastUserText,
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeServer,
  type FakeRequest,
} from "../support/fake-anthropic.js";
import { waitFor } from "../support/wait.js";
import { at, failingRun, runAgainst } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

/** Replies by prompt: `fail` → non-retryable 500, `slow` → never answers, `wait N` → after N ms, else echo. */
function byPrompt(request: FakeRequest): FakeReply {
  const prompt = lastUserText(request);
  if (prompt.includes("fail")) return reply.error(500, { shouldRetry: false });
  if (prompt.includes("slow")) return reply.hang();
  const wait = /wait (\d+)/.exec(prompt);
  return reply.text(`echo: ${prompt.split("\n")[0]}`, wait ? { delayMs: Number(wait[1]) } : {});
}

const eventually = (check: () => boolean) => waitFor(check, "the request aborted");

describe("parallel", () => {
  it("all: returns every branch's result in branch order", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const { result, events } = await runAgainst(server, (rt) =>
      Promise.all(
        rt.branches(at(1), {}, [
          () => rt.session({ at: at(2), prompt: "A wait 30" }),
          () => rt.session({ at: at(3), prompt: "B" }),
        ]),
      ),
    );
    expect(result).toEqual(["echo: A wait 30", "echo: B"]);
    expect(events).toContainEqual(expect.objectContaining({ type: "parallel-end", succeeded: 2, failed: 0 }));
  });

  it("all + fail-fast: rejects at the first failure and cancels the other branches at the server", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const { error } = await failingRun(server, (rt) =>
      Promise.all(
        rt.branches(at(1), {}, [
          () => rt.session({ at: at(2), prompt: "slow" }),
          () => rt.session({ at: at(3), prompt: "fail" }),
        ]),
      ),
    );
    expect(error.message).toMatch(/test-program\.prose:3:1/);
    await eventually(() => server.requests.some((request) => request.state === "aborted"));
  });

  it("rt.parallel (modules generated before rt.branches) joins the same way", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const { result } = await runAgainst(server, (rt) =>
      rt.parallel(at(1), { onFail: "ignore" }, [
        () => rt.session({ at: at(2), prompt: "fail" }),
        () => rt.session({ at: at(3), prompt: "B" }),
      ]),
    );
    expect(result).toEqual([null, "echo: B"]);
  });

  it("continue puts an error record where a branch failed; ignore puts null", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const { result } = await runAgainst(server, async (rt) => [
      await Promise.all(
        rt.branches(at(1), { onFail: "continue" }, [
          () => rt.session({ at: at(2), prompt: "ok" }),
          () => rt.session({ at: at(3), prompt: "fail" }),
        ]),
      ),
      await rt.parallel(at(4), { onFail: "ignore" }, [
        () => rt.session({ at: at(5), prompt: "fail" }),
        () => rt.session({ at: at(6), prompt: "fine" }),
      ]),
    ]);
    const [continued, ignored] = result as [unknown[], unknown[]];
    expect(continued[0]).toBe("echo: ok");
    expect(continued[1]).toEqual({ error: expect.stringMatching(/failed/) as unknown });
    expect(ignored).toEqual([null, "echo: fine"]);
  });

  it("first: the winner's result comes back and the losers' requests are aborted at the server", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const { result } = await runAgainst(server, (rt) =>
      rt.first(at(1), {}, [
        () => rt.session({ at: at(2), prompt: "slow one" }),
        () => rt.session({ at: at(3), prompt: "quick wait 50" }),
        () => rt.session({ at: at(4), prompt: "slow two" }),
      ]),
    );
    expect(result).toEqual([null, "echo: quick wait 50", null]);
    await eventually(() => server.requests.filter((request) => request.state === "aborted").length === 2);
    expect(
      server.requests
        .filter((request) => lastUserText(request).includes("slow"))
        .every((request) => request.state === "aborted"),
    ).toBe(true);
  });

  it("first: calls of losing branches still waiting for a slot are dropped, never sent (counted at the server)", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const { result } = await runAgainst(
      server,
      (rt) => {
        const losers = Array.from({ length: 8 }, (_, i) => () => rt.session({ at: at(3 + i), prompt: `slow ${i}` }));
        return rt.first(at(1), {}, [() => rt.session({ at: at(2), prompt: "quick wait 20" }), ...losers]);
      },
      { concurrency: 2 },
    );
    expect((result as unknown[])[0]).toBe("echo: quick wait 20");
    await eventually(() => server.requests.filter((request) => request.state === "aborted").length === 1);
    // The winner and the one loser that got the second slot: the 7 queued behind them never went out.
    expect(server.requests).toHaveLength(2);
  });

  it("any: a losing branch sends nothing after the race is decided, not even its next step", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const { result } = await runAgainst(server, (rt) =>
      rt.any(at(1), {}, [
        () => rt.session({ at: at(2), prompt: "winner wait 10" }),
        async () => {
          await rt.session({ at: at(3), prompt: "first step wait 500" });
          return rt.session({ at: at(4), prompt: "second step" });
        },
      ]),
    );
    expect(result).toEqual(["echo: winner wait 10", null]);
    await eventually(() => server.requests.some((request) => request.state === "aborted"));
    expect(server.requests.map((request) => lastUserText(request).split("\n")[0])).not.toContain("second step");
    expect(server.requests).toHaveLength(2);
  });

  it("any with count waits for that many successes, tolerating failures", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const { result } = await runAgainst(server, (rt) =>
      rt.any(at(1), { count: 2 }, [
        () => rt.session({ at: at(2), prompt: "fail" }),
        () => rt.session({ at: at(3), prompt: "a wait 10" }),
        () => rt.session({ at: at(4), prompt: "slow" }),
        () => rt.session({ at: at(5), prompt: "b wait 40" }),
      ]),
    );
    expect(result).toEqual([null, "echo: a wait 10", null, "echo: b wait 40"]);
    await eventually(() => server.requests.some((request) => request.state === "aborted"));
  });

  it("any rejects once the count can no longer be reached", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const { error } = await failingRun(server, (rt) =>
      rt.any(at(1), { count: 2 }, [
        () => rt.session({ at: at(2), prompt: "fail" }),
        () => rt.session({ at: at(3), prompt: "fail too" }),
        () => rt.session({ at: at(4), prompt: "ok" }),
      ]),
    );
    expect(error.message).toMatch(/failed/);
  });
});

describe("map", () => {
  it("returns results in item order under the run-wide limit, and nested maps never exceed it", async () => {
    let inFlight = 0;
    let peak = 0;
    server = await startFakeAnthropic({
      respond: async (request) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 15));
        inFlight--;
        return reply.text(`r:${lastUserText(request)}`);
      },
    });
    const { result } = await runAgainst(
      server,
      (rt) =>
        rt.map(at(1), ["a", "b", "c"], (outer) =>
          rt.map(at(2), [1, 2, 3, 4], (inner) => rt.session({ at: at(3), prompt: `${String(outer)}${String(inner)}` })),
        ),
      { concurrency: 3 },
    );
    expect(result).toEqual([["a", "b", "c"].map((o) => [1, 2, 3, 4].map((i) => `r:${o}${i}`))].flat());
    expect(peak).toBeLessThanOrEqual(3);
    expect(peak).toBeGreaterThan(1);
  });

  it("fails fast and cancels the items still running", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const { error } = await failingRun(server, (rt) =>
      rt.map(at(1), ["slow", "fail"], (item) => rt.session({ at: at(2), prompt: String(item) })),
    );
    expect(error.message).toMatch(/failed/);
    await eventually(() => server.requests.some((request) => request.state === "aborted"));
  });
});

describe("blocks", () => {
  it("gives each call an increasing execution id and enforces the depth limit", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const depths: number[] = [];
    const { error } = await failingRun(server, (rt) => {
      const recurse = (n: number): Promise<number> =>
        rt.block(at(10, 3), "process", 5, async () => {
          depths.push(n);
          return recurse(n + 1);
        });
      return recurse(1);
    });
    expect(depths).toEqual([1, 2, 3, 4, 5]);
    expect(error.message).toMatch(/10:3: RecursionLimitExceeded: block 'process' exceeded max_depth 5/);
  });

  it("defaults to a depth limit of 100", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    let calls = 0;
    const { error } = await failingRun(server, (rt) => {
      const recurse = (): Promise<number> => rt.block(at(1), "deep", undefined, () => (calls++, recurse()));
      return recurse();
    });
    expect(calls).toBe(100);
    expect(error.message).toMatch(/max_depth 100/);
  });
});

describe("step journal", () => {
  it("keys steps by context path, call site and occurrence, and replays recorded steps without the model", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const journal = new MemoryJournal();
    const program = async (rt: import("../../runtime/types.js").Runtime): Promise<unknown> => {
      const looped: string[] = [];
      for (let i = 0; i < 2; i++) looped.push(await rt.session({ at: at(2), prompt: `loop ${i}` }));
      const branches = await rt.parallel(at(3), {}, [
        () => rt.session({ at: at(4), prompt: "left" }),
        () => rt.session({ at: at(4), prompt: "right" }),
      ]);
      const mapped = await rt.map(at(5), ["x", "y"], (item) =>
        rt.session({ at: at(6), prompt: `item ${String(item)}` }),
      );
      const blocked = await rt.block(at(7), "b", undefined, () => rt.session({ at: at(8), prompt: "in block" }));
      return { looped, branches, mapped, blocked };
    };
    const first = await runAgainst(server, program, { journal });
    expect([...journal.steps.keys()].sort()).toEqual(
      [
        "/session@2:1#0",
        "/session@2:1#1",
        "/parallel@3:1#0/b0/session@4:1#0",
        "/parallel@3:1#0/b1/session@4:1#0",
        "/map@5:1#0/i0/session@6:1#0",
        "/map@5:1#0/i1/session@6:1#0",
        "/do:b@7:1#0/session@8:1#0",
      ].sort(),
    );
    const requestsBefore = server.requests.length;
    const replay = await runAgainst(server, program, { journal });
    expect(server.requests.length).toBe(requestsBefore);
    expect(replay.result).toEqual(first.result);
    expect(
      replay.events
        .filter((event) => event.type === "session-end")
        .every((event) => event.type === "session-end" && event.replayed),
    ).toBe(true);
  });

  it("a resumed run continues from the first step that was not recorded", async () => {
    server = await startFakeAnthropic({ respond: byPrompt });
    const journal = new MemoryJournal();
    await failingRun(
      server,
      async (rt) => {
        await rt.session({ at: at(1), prompt: "one" });
        await rt.session({ at: at(2), prompt: "fail now" });
      },
      { journal },
    );
    const prompts = () => server.requests.map((request) => lastUserText(request).split("\n")[0]);
    expect(prompts()).toEqual(["one", "fail now"]);
    await runAgainst(
      server,
      async (rt) => [await rt.session({ at: at(1), prompt: "one" }), await rt.session({ at: at(2), prompt: "two" })],
      { journal },
    );
    expect(prompts()).toEqual(["one", "fail now", "two"]);
  });
});

describe("a race replayed after a crash (DBOS)", () => {
  it("does not take a branch's replayed cancellation for a failure: the other branches decide", async () => {
    const { race } = await import("../../runtime/steps/parallel.js");
    const { ProseError } = await import("../../runtime/errors.js");
    const aborted = Object.assign(new Error("Request was aborted."), { name: "APIUserAbortError" });
    const outcomes = [
      aborted,
      new ProseError("The step was cancelled.", { cause: aborted }),
      new ProseError("boom"),
    ].map(async (loser) => {
      let win: (value: string) => void = () => {};
      const winner = new Promise<string>((resolve) => (win = resolve));
      const raced = race(
        { join: "first" },
        [async () => null, async () => null],
        new AbortController().signal,
        (_, index) => (index === 0 ? winner : Promise.reject(loser)),
      );
      // The loser's replayed abort settles first, before the winner's recorded outcome is read.
      await new Promise((resolve) => setImmediate(resolve));
      win("the winner");
      return raced.catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    });
    expect(await Promise.all(outcomes)).toEqual([
      { results: ["the winner", null], succeeded: 1, failed: 0 },
      { results: ["the winner", null], succeeded: 1, failed: 0 },
      // A real failure still fails the race (fail-fast).
      "boom",
    ]);
  });
});
