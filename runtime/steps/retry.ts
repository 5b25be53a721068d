/**
 * `retry:` / `backoff:` on top of the SDK's own transport retries: a failed step is tried again up to
 * `retry` more times. The wait before attempt n+1 is none, the base delay every time (`linear`, the
 * spec's fixed delay) or 2^(n-1) × base (`exponential`: 1 s, 2 s, 4 s ...). Waits end early when the step's signal aborts (its deadline, a lost race, a
 * cancelled run), so no wait can outlive the step's time limit.
 */
import { isAbortError, WaitingForInput } from "../errors.js";
import type { Backoff } from "../types.js";
import { sleep } from "../abortable-sleep.js";

export interface RetryPolicy {
  readonly retries: number;
  readonly backoff: Backoff;
  readonly baseDelayMs: number;
}

export function backoffDelay(policy: RetryPolicy, failedAttempts: number): number {
  switch (policy.backoff) {
    case "none":
      return 0;
    case "linear":
      return policy.baseDelayMs;
    case "exponential":
      return policy.baseDelayMs * 2 ** (failedAttempts - 1);
  }
}

/** How a wait between attempts is spent: `sleep`, unless a test records the schedule instead. */
export type Wait = (ms: number, signal: AbortSignal) => Promise<void>;

export async function withRetries<T>(
  policy: RetryPolicy,
  signal: AbortSignal,
  attempt: (attemptNumber: number) => Promise<T>,
  wait: Wait = sleep,
): Promise<T> {
  if (policy.retries <= 0) return attempt(1);
  for (let failed = 0; ; failed++) {
    try {
      return await attempt(failed + 1);
    } catch (error) {
      // A wait (for an input or a person's approval) is not a failure to retry.
      if (signal.aborted || isAbortError(error) || error instanceof WaitingForInput || failed >= policy.retries)
        throw error;
      const delay = backoffDelay(policy, failed + 1);
      if (delay > 0) await wait(delay, signal);
    }
  }
}
