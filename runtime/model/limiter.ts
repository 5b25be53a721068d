/**
 * A limit on model calls in flight. It gates model calls only, never branches: a branch waiting for
 * its children holds no slot, so nested `parallel` / `map` can neither exceed the limit nor deadlock.
 * A call still waiting for a slot when its signal aborts (a lost race, a deadline, a cancelled run)
 * leaves the queue and is never sent.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private current: number) {
    if (!Number.isInteger(current) || current < 1)
      throw new RangeError(`concurrency must be a positive integer, got ${current}`);
  }

  get limit(): number {
    return this.current;
  }

  /** Calls in flight now. */
  get inFlight(): number {
    return this.active;
  }

  run<T>(signal: AbortSignal, task: () => Promise<T>): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.active < this.current) {
      this.active++;
      return this.runInSlot(task);
    }
    return this.wait(signal).then(() => this.runInSlot(task));
  }

  /** Changes the limit; a wider limit lets waiting calls start at once, a narrower one lets calls in flight finish. */
  protected setLimit(limit: number): void {
    this.current = limit;
    while (this.active < this.current && this.waiting.length > 0) this.waiting.shift()!();
  }

  /** Runs `task` in the slot already taken, and frees the slot when it settles. */
  private async runInSlot<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      this.active--;
      if (this.active < this.current) this.waiting.shift()?.();
    }
  }

  private wait(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal.removeEventListener("abort", cancel);
        this.active++;
        resolve();
      };
      const cancel = (): void => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal.reason);
      };
      this.waiting.push(grant);
      signal.addEventListener("abort", cancel, { once: true });
    });
  }
}
