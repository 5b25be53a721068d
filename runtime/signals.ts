import { setMaxListeners } from "node:events";
import { ProseError } from "./errors.js";

/**
 * An AbortController whose signal every concurrent step below it listens to (up to the concurrency
 * limit at once), so Node's leak warning at 10 listeners does not apply.
 */
export function sharedController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/**
 * The signal one step runs under: it aborts when the step's context is cancelled (with the context's
 * reason) or when the step outlives its time limit (with a `ProseError`). `release()` ends the step.
 *
 * Creating an AbortController and a timer for every step was a measurable part of the runtime's own
 * cost, so both are shared: a released step signal that never aborted goes back to a small free list
 * and serves a later step, and the time limits of all steps with the same limit share one timer. Steps
 * with one limit end their time limit in the order they started, so the timer only ever waits for the
 * oldest running step; it keeps the process alive only while a step runs.
 */
export interface StepSignal {
  readonly signal: AbortSignal;
  release(): void;
}

const MAX_FREE_STEP_SIGNALS = 64;
/** The longest delay one Node timer can wait; longer limits are waited out in several turns. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const freeStepSignals: PooledStepSignal[] = [];
/** Each step signal's owner, so that a wait for a person can take the step out of its time limit. */
const stepsBySignal = new WeakMap<AbortSignal, PooledStepSignal>();
const deadlineTimers = new Map<number, DeadlineTimer>();

export function stepSignal(parent: AbortSignal, limitMs: number): StepSignal {
  if (parent.aborted) {
    const controller = new AbortController();
    controller.abort(parent.reason);
    return { signal: controller.signal, release() {} };
  }
  const step = freeStepSignals.pop() ?? new PooledStepSignal();
  step.begin(parent, deadlineTimer(limitMs));
  return step;
}

/**
 * Waits for a person (an approval on DBOS, where the step waits in the database) without that time
 * counting against the step's limit: a decision next morning must not find the step timed out. The
 * step gets its whole limit again once the wait ends, which also keeps its timer's start order.
 */
export async function outsideTimeLimit<T>(signal: AbortSignal | undefined, wait: () => Promise<T>): Promise<T> {
  const step = signal === undefined ? undefined : stepsBySignal.get(signal);
  step?.hold();
  try {
    return await wait();
  } finally {
    step?.unhold();
  }
}

function deadlineTimer(limitMs: number): DeadlineTimer {
  let timer = deadlineTimers.get(limitMs);
  if (timer === undefined) deadlineTimers.set(limitMs, (timer = new DeadlineTimer(limitMs)));
  return timer;
}

class PooledStepSignal implements StepSignal {
  private readonly controller = new AbortController();
  private parent: AbortSignal | undefined;
  private timer: DeadlineTimer | undefined;
  deadline = 0;
  private readonly forward = (): void => this.controller.abort(this.parent?.reason);

  constructor() {
    // Tools (fetch through undici, child processes) may leave a listener until they are collected.
    setMaxListeners(0, this.controller.signal);
    stepsBySignal.set(this.controller.signal, this);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  begin(parent: AbortSignal, timer: DeadlineTimer): void {
    this.parent = parent;
    this.timer = timer;
    parent.addEventListener("abort", this.forward, { once: true });
    timer.add(this);
  }

  abort(reason: unknown): void {
    this.controller.abort(reason);
  }

  /** Out of its timer while a person decides; back in with its whole limit after (see `outsideTimeLimit`). */
  hold(): void {
    this.timer?.remove(this);
  }

  unhold(): void {
    if (this.timer !== undefined && !this.controller.signal.aborted) this.timer.add(this);
  }

  release(): void {
    this.parent?.removeEventListener("abort", this.forward);
    this.timer?.remove(this);
    this.parent = undefined;
    this.timer = undefined;
    if (!this.controller.signal.aborted && freeStepSignals.length < MAX_FREE_STEP_SIGNALS) freeStepSignals.push(this);
  }
}

/** The time limits of the running steps with one limit, oldest first, behind one timer. */
class DeadlineTimer {
  /** Insertion order is start order, which (one limit) is deadline order. */
  private readonly running = new Set<PooledStepSignal>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly limitMs: number) {}

  add(step: PooledStepSignal): void {
    step.deadline = performance.now() + this.limitMs;
    this.running.add(step);
    if (this.timer === undefined) this.timer = setTimeout(this.expire, Math.min(this.limitMs, MAX_TIMER_MS));
    else if (this.running.size === 1) this.timer.ref();
  }

  remove(step: PooledStepSignal): void {
    // With nothing running, the pending timer must not keep the process alive; it finds nothing to do.
    if (this.running.delete(step) && this.running.size === 0) this.timer?.unref();
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    const now = performance.now();
    for (const step of this.running) {
      if (step.deadline > now) {
        this.timer = setTimeout(this.expire, Math.min(Math.max(1, Math.ceil(step.deadline - now)), MAX_TIMER_MS));
        return;
      }
      this.running.delete(step);
      step.abort(
        new ProseError(`The step took longer than its time limit of ${this.limitMs} ms (RunOptions.stepTimeoutMs).`),
      );
    }
  };
}
