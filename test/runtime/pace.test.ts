import { afterEach, describe, expect, it } from "vitest";
import { paceFor, INITIAL_PACE } from "../../runtime/model/pace.js";
import { lastUserText, reply, startFakeAnthropic, type FakeReply, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst, TEST_API_KEY } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

/** A 429 the SDK retries after 1 ms (a `retry-after` of 0 would make it fall back to its own backoff). */
const overloaded = (status: 429 | 529): FakeReply => ({
  kind: "error",
  status,
  headers: { "retry-after-ms": "1" },
  body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
});

/** Counts requests the server holds at once, and the pace the client had when each arrived. */
function countingServer(answer: (arrival: number) => FakeReply | Promise<FakeReply>) {
  let pending = 0;
  const seen: { pending: number; limit: number }[] = [];
  const respond = async (): Promise<FakeReply> => {
    const arrival = seen.length;
    pending++;
    seen.push({ pending, limit: paceFor(server.url, TEST_API_KEY).limit });
    try {
      return await answer(arrival);
    } finally {
      pending--;
    }
  };
  return { respond, seen };
}

const branches = (count: number, rt: Parameters<Parameters<typeof runAgainst>[1]>[0]) =>
  rt.parallel(
    at(1),
    {},
    Array.from({ length: count }, (_, i) => () => rt.session({ at: at(2 + i), prompt: `branch ${i}` })),
  );

describe("the API's pace", () => {
  it("starts 64 wide, halves once per overloaded window, keeps attempts under it, and grows back with successes", async () => {
    let releaseFirstWave!: () => void;
    const firstWave = new Promise<void>((resolve) => (releaseFirstWave = resolve));
    const counting = countingServer(async (arrival) => {
      if (arrival < INITIAL_PACE) {
        // Hold the first 64 until all have arrived: proof that they were in flight at once.
        if (arrival === INITIAL_PACE - 1) releaseFirstWave();
        await firstWave;
        return overloaded(429);
      }
      return reply.text("ok");
    });
    server = await startFakeAnthropic({ respond: counting.respond });
    await runAgainst(server, (rt) => branches(INITIAL_PACE, rt), { maxRetries: 3 });

    const { seen } = counting;
    expect(seen).toHaveLength(2 * INITIAL_PACE);
    expect(Math.max(...seen.slice(0, INITIAL_PACE).map((arrival) => arrival.pending))).toBe(INITIAL_PACE);
    // 64 429s answered one window: the pace halved once, not 64 times.
    const retries = seen.slice(INITIAL_PACE);
    expect(Math.min(...retries.map((arrival) => arrival.limit))).toBe(INITIAL_PACE / 2);
    expect(retries[0]!.limit).toBe(INITIAL_PACE / 2);
    // No retry went out beyond the pace of its moment, so the narrowed window held the retries back.
    for (const arrival of retries) expect(arrival.pending).toBeLessThanOrEqual(arrival.limit);
    expect(Math.max(...retries.slice(0, INITIAL_PACE / 2).map((arrival) => arrival.pending))).toBeLessThan(
      INITIAL_PACE,
    );
    // 64 successes grew it back to the full width.
    expect(paceFor(server.url, TEST_API_KEY).limit).toBe(INITIAL_PACE);
  });

  it("is shared by the runs of the process that reach the same server with the same key, and 529 halves it too", async () => {
    server = await startFakeAnthropic({
      script: [overloaded(529), reply.text("one")],
      respond: () => reply.text("ok"),
    });
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "first run" }), { maxRetries: 1 });
    // The 529 halved it, the retry's success added one.
    expect(paceFor(server.url, TEST_API_KEY).limit).toBe(INITIAL_PACE / 2 + 1);
    server.push(overloaded(529), reply.text("two"));
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "second run" }), { maxRetries: 1 });
    expect(paceFor(server.url, TEST_API_KEY).limit).toBe(Math.floor((INITIAL_PACE / 2 + 1) / 2) + 1);
    expect(paceFor(server.url, "another key").limit).toBe(INITIAL_PACE);
  });

  it("stays under the run's hard cap (`concurrency`) however wide the pace is", async () => {
    let releaseFirst!: () => void;
    const first = new Promise<void>((resolve) => (releaseFirst = resolve));
    const counting = countingServer(async (arrival) => {
      if (arrival === 2) releaseFirst();
      if (arrival < 3) await first;
      return reply.text("ok");
    });
    server = await startFakeAnthropic({ respond: counting.respond });
    await runAgainst(server, (rt) => branches(20, rt), { concurrency: 3 });
    expect(counting.seen).toHaveLength(20);
    expect(Math.max(...counting.seen.map((arrival) => arrival.pending))).toBe(3);
  });

  it("drops the calls of a lost race that wait for the pace, unsent (counted at the server)", async () => {
    server = await startFakeAnthropic({
      respond: (request) => (lastUserText(request).startsWith("quick") ? reply.text("won") : reply.hang()),
    });
    // Narrow this server's pace to one call at a time, as six overloaded windows in a row would.
    const pace = paceFor(server.url, TEST_API_KEY);
    for (let generation = 0; generation < 6; generation++) pace.overloaded(generation);
    expect(pace.limit).toBe(1);
    const { result } = await runAgainst(server, (rt) =>
      rt.parallel(at(1), { join: "first" }, [
        () => rt.session({ at: at(2), prompt: "quick" }),
        ...Array.from({ length: 8 }, (_, i) => () => rt.session({ at: at(3 + i), prompt: `slow ${i}` })),
      ]),
    );
    expect((result as unknown[])[0]).toBe("won");
    // The winner, and at most the one call the pace let go when the winner's headers arrived (before
    // the race was decided); the other seven never left the queue.
    expect(server.requests.length).toBeLessThanOrEqual(2);
    expect(pace.inFlight).toBe(0);
  });

  it("grows past 64 only as far as a run's cap asks", async () => {
    server = await startFakeAnthropic({ respond: () => reply.text("ok") });
    await runAgainst(server, (rt) => branches(10, rt), { concurrency: 70 });
    expect(paceFor(server.url, TEST_API_KEY).limit).toBe(70);
  });
});
