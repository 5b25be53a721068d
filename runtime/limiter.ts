/**
 * The run-wide concurrency limit. It gates model calls only, never branches: a branch waiting for
 * its children holds no slot, so nested `parallel` / `map` can neither exceed the limit nor deadlock.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  }

  run<T>(signal: AbortSignal, task: () => Promise<T>): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.active < this.limit) {
      this.active++;
      return this.runInSlot(task);
    }
    return this.wait(signal).then(() => this.runInSlot(task));
  }

  /** Runs `task` in the slot already taken, and frees the slot when it settles. */
  private async runInSlot<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
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
