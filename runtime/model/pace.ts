/**
 * The API's pace: how many model calls one client (base URL + API key) may have in flight, shared by
 * every run of the process. It starts wide, halves when the server says it is overloaded (429 or
 * 529) and grows back by one with every success, up to its ceiling. A run's `concurrency` is a hard
 * cap on top of it (kernel/core.ts holds both).
 *
 * The SDK retries 429s itself, so a limiter around `messages.create` would never see them, and its
 * retries would go out at the old width. So the pace sits in the client's `fetch`: every HTTP attempt,
 * retries included, waits for a slot, and every response adjusts the pace. Of the 429s that answer
 * one window's worth of requests only the first halves it: the rest were sent under the old window
 * and say nothing new. An attempt whose signal aborts while it waits is never sent.
 */
import { Limiter } from "./limiter.js";
import { traceResponse } from "../telemetry/run-telemetry.js";

export const INITIAL_PACE = 64;
const MAX_PACES = 16;
const NEVER = new AbortController().signal;

export class Pace extends Limiter {
  /** Bumped by every decrease; a response to a request sent in an older generation cannot decrease again. */
  private generation = 0;
  private ceiling = INITIAL_PACE;

  constructor() {
    super(INITIAL_PACE);
  }

  /** A run asked for up to `cap` calls at once: the pace may grow that far. */
  allow(cap: number): void {
    if (cap > this.ceiling) this.ceiling = cap;
  }

  /** Wraps `fetch`: every attempt waits for a slot (held until the response's headers), every response adjusts the pace. */
  gate(base: typeof fetch): typeof fetch {
    return (input, init) =>
      this.run(init?.signal ?? NEVER, async () => {
        const sentIn = this.generation;
        const response = await base(input, init);
        traceResponse(response.status);
        if (response.status === 429 || response.status === 529) this.overloaded(sentIn);
        else if (response.ok) this.succeeded();
        return response;
      });
  }

  overloaded(sentIn: number): void {
    if (sentIn !== this.generation) return;
    this.generation++;
    this.setLimit(Math.max(1, Math.floor(this.limit / 2)));
  }

  succeeded(): void {
    if (this.limit < this.ceiling) this.setLimit(this.limit + 1);
  }
}

const paces = new Map<string, Pace>();

/** The pace of the client that reaches `baseURL` with `apiKey` (one per pair in the process). */
export function paceFor(baseURL: string | null, apiKey: string | null): Pace {
  const key = JSON.stringify([baseURL, apiKey]);
  let pace = paces.get(key);
  if (pace === undefined) {
    pace = new Pace();
    if (paces.size >= MAX_PACES) paces.delete(paces.keys().next().value as string);
    paces.set(key, pace);
  }
  return pace;
}
