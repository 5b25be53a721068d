/**
 * `retry:` with `backoff:` (DIALECT.md, the spec's table): `none` waits not at all, `linear` the
 * same delay before every retry, `exponential` doubles it. The waits are recorded, not slept.
 */
import { describe, expect, it } from "vitest";
import { backoffDelay, withRetries, type RetryPolicy } from "../../runtime/steps/retry.js";
import type { Backoff } from "../../runtime/types.js";

/** Runs a step that fails `failures` times, then answers; returns the waits asked for and the attempts made. */
async function schedule(backoff: Backoff, retries: number, failures: number) {
  const policy: RetryPolicy = { retries, backoff, baseDelayMs: 1000 };
  const waits: number[] = [];
  const attempts: number[] = [];
  const outcome = await withRetries(
    policy,
    new AbortController().signal,
    async (attempt) => {
      attempts.push(attempt);
      if (attempts.length <= failures) throw new Error(`failure ${attempts.length}`);
      return "answer";
    },
    async (ms) => {
      waits.push(ms);
    },
  ).catch((error: unknown) => (error as Error).message);
  return { waits, attempts, outcome };
}

describe("retry schedules", () => {
  it("`linear` waits the same base delay before every retry", async () => {
    expect(await schedule("linear", 4, 4)).toEqual({
      waits: [1000, 1000, 1000, 1000],
      attempts: [1, 2, 3, 4, 5],
      outcome: "answer",
    });
  });

  it("`exponential` doubles the delay: 1 s, 2 s, 4 s, 8 s", async () => {
    expect(await schedule("exponential", 4, 4)).toEqual({
      waits: [1000, 2000, 4000, 8000],
      attempts: [1, 2, 3, 4, 5],
      outcome: "answer",
    });
  });

  it("`none` retries at once", async () => {
    expect(await schedule("none", 3, 2)).toEqual({ waits: [], attempts: [1, 2, 3], outcome: "answer" });
  });

  it("gives up after `retry` more attempts, with no wait after the last", async () => {
    expect(await schedule("linear", 2, 5)).toEqual({ waits: [1000, 1000], attempts: [1, 2, 3], outcome: "failure 3" });
  });

  it("the delay before each retry, by failed attempts so far", () => {
    const delays = (backoff: Backoff) =>
      [1, 2, 3, 4].map((failed) => backoffDelay({ retries: 4, backoff, baseDelayMs: 250 }, failed));
    expect(delays("none")).toEqual([0, 0, 0, 0]);
    expect(delays("linear")).toEqual([250, 250, 250, 250]);
    expect(delays("exponential")).toEqual([250, 500, 1000, 2000]);
  });
});
