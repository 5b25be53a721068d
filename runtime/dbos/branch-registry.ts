/**
 * The bodies of concurrent branches, offered by the run that reached them to the child workflow that
 * runs them. A body is a closure over the run's live state, so it cannot be stored: after a crash the
 * child workflow waits here until its parent, replaying in this process, reaches the branch again.
 */
import type { Value } from "../types.js";

interface Entry {
  body: (() => Promise<Value>) | undefined;
  claimed: boolean;
  readonly result: Promise<Value>;
  resolve(value: Value): void;
  reject(error: unknown): void;
  /** Wakes a child workflow waiting for the body. */
  wake: (() => void) | undefined;
}

export class BranchRegistry {
  private readonly entries = new Map<string, Entry>();

  /** Offers the body of the branch `id`; resolves with its result, whoever runs it in this process. */
  offer(id: string, body: () => Promise<Value>): Promise<Value> {
    const entry = this.entry(id);
    entry.body = body;
    entry.wake?.();
    return entry.result;
  }

  /** Whether a child workflow in this process has taken the body of `id`. */
  claimed(id: string): boolean {
    return this.entries.get(id)?.claimed === true;
  }

  /** Drops the body of `id`: its outcome was read from the store, no child workflow will run it here. */
  forget(id: string): void {
    this.entries.delete(id);
  }

  /**
   * Runs the body of `id` once its parent offers it. `stillOwned` is asked every `pollMs` while the
   * body has not come: a child that another worker took over (or whose run ended) stops waiting.
   */
  async run(id: string, stillOwned: () => Promise<boolean>, pollMs: number): Promise<Value> {
    const entry = this.entry(id);
    while (entry.body === undefined) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        entry.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      entry.wake = undefined;
      if (entry.body === undefined && !(await stillOwned())) throw new BranchMoved(id);
    }
    if (entry.claimed) return entry.result;
    entry.claimed = true;
    try {
      const value = await entry.body();
      entry.resolve(value);
      return value;
    } catch (error) {
      entry.reject(error);
      throw error;
    } finally {
      this.entries.delete(id);
    }
  }

  private entry(id: string): Entry {
    let entry = this.entries.get(id);
    if (entry === undefined) {
      let resolve!: (value: Value) => void;
      let reject!: (error: unknown) => void;
      const result = new Promise<Value>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // The parent may have stopped listening (a lost race); its rejection is no one's to report.
      result.catch(() => undefined);
      entry = { body: undefined, claimed: false, result, resolve, reject, wake: undefined };
      this.entries.set(id, entry);
    }
    return entry;
  }
}

/** A child workflow that this process no longer owns: another worker runs it with its parent. */
export class BranchMoved extends Error {
  constructor(readonly id: string) {
    super(`Branch ${id} is run by another worker now.`);
  }
}
