/**
 * How a run survives a crash: the seam between the runtime and its store. Two implementations:
 *
 * - `JournalDurability` over a `Journal` (in memory, or `.prose/runs/<id>/journal.jsonl`): steps are
 *   looked up and recorded by key, so concurrent branches need nothing of their own.
 * - `DbosDurability` (`runtime/dbos/`): every step is a DBOS checkpoint and every concurrent branch a
 *   child workflow, because DBOS numbers a workflow's steps in the order they are reached.
 */
import { WaitingForInput } from "../errors.js";
import type { Durability, DurableStep, Journal, RecordedStep, StepIdentity, StepKind, Value } from "../types.js";

export class JournalDurability implements Durability {
  constructor(readonly journal: Journal) {}

  async step(
    key: string,
    kind: StepKind,
    execute: () => Promise<RecordedStep>,
    identity?: StepIdentity,
  ): Promise<DurableStep> {
    const recorded = await this.journal.get(key);
    if (recorded !== undefined) {
      if (recorded.kind !== kind) throw new StepMismatch(key, recorded.kind);
      return { step: recorded, replayed: true };
    }
    const step = await execute();
    await this.journal.put(key, step, identity);
    return { step, replayed: false };
  }

  branch<T extends Value>(_key: string, body: () => Promise<T>): Promise<T> {
    return body();
  }

  scope(): string {
    return "";
  }
}

/** The durability of a program called from another program's run: its keys live under the call's. */
export class ScopedDurability implements Durability {
  readonly awaitAnswer?: Durability["awaitAnswer"];

  constructor(
    private readonly parent: Durability,
    private readonly prefix: string,
  ) {
    const awaitAnswer = parent.awaitAnswer?.bind(parent);
    if (awaitAnswer !== undefined)
      this.awaitAnswer = (key, question, timeoutSeconds) =>
        awaitAnswer(prefix + key, { ...question, key: prefix + question.key }, timeoutSeconds);
  }

  async step(
    key: string,
    kind: StepKind,
    execute: () => Promise<RecordedStep>,
    identity?: StepIdentity,
  ): Promise<DurableStep> {
    try {
      return await this.parent.step(this.prefix + key, kind, execute, identity);
    } catch (error) {
      // The question is answered under the key the run's store knows it by.
      throw error instanceof WaitingForInput ? error.prefixed(this.prefix) : error;
    }
  }

  branch<T extends Value>(key: string, body: () => Promise<T>): Promise<T> {
    return this.parent.branch(this.prefix + key, body);
  }

  scope(): string {
    return this.parent.scope();
  }
}

/** A recorded step of another kind where this program now has a step: the program changed. */
export class StepMismatch extends Error {
  constructor(
    readonly key: string,
    readonly recordedKind: string,
  ) {
    super(`The recorded run does not match this program (step ${key} was a ${recordedKind}).`);
  }
}
