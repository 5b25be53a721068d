/**
 * How a run survives a crash: the seam between the runtime and its store. Two implementations:
 *
 * - `JournalDurability` over a `Journal` (in memory, or `.prose/runs/<id>/journal.jsonl`): steps are
 *   looked up and recorded by key, so concurrent branches need nothing of their own.
 * - `DbosDurability` (`runtime/dbos/`): every step is a DBOS checkpoint and every concurrent branch a
 *   child workflow, because DBOS numbers a workflow's steps in the order they are reached.
 */
import type { RecordedStep, StepKind, Journal } from "./journal.js";
import { WaitingForInput, type Question } from "./errors.js";
import type { StepIdentity } from "./step-identity.js";
import type { Value } from "./types.js";

export interface DurableStep {
  readonly step: RecordedStep;
  /** Whether the outcome came from the store rather than from running the step now. */
  readonly replayed: boolean;
}

export interface Durability {
  /**
   * Runs a model-facing step once per run: a resumed run gets the recorded outcome back instead.
   * `identity` says what the step is beyond its key (its content anchor, what it asks): a store that
   * looks steps up by key can ignore it.
   */
  step(key: string, kind: StepKind, execute: () => Promise<RecordedStep>, identity?: StepIdentity): Promise<DurableStep>;
  /** Runs one of several concurrent bodies (a `parallel:` branch, a `parallel for` item). */
  branch<T extends Value>(key: string, body: () => Promise<T>): Promise<T>;
  /**
   * The part of the run that may share remembered answers (extractions): steps of one scope are
   * recorded in one sequence, so reusing an answer there replays the same way.
   */
  scope(): string;
  /**
   * Waits in the store for the answer to a mid-program input nobody can be asked in process (DBOS:
   * a message to the run); undefined when `timeoutSeconds` passed first. Without it, such an input
   * stops the run as waiting for input.
   */
  awaitAnswer?(key: string, question: Question, timeoutSeconds: number | undefined): Promise<{ readonly value: Value } | undefined>;
}

export class JournalDurability implements Durability {
  constructor(readonly journal: Journal) {}

  async step(key: string, kind: StepKind, execute: () => Promise<RecordedStep>, identity?: StepIdentity): Promise<DurableStep> {
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
    if (awaitAnswer !== undefined) this.awaitAnswer = (key, question, timeoutSeconds) => awaitAnswer(prefix + key, { ...question, key: prefix + question.key }, timeoutSeconds);
  }

  async step(key: string, kind: StepKind, execute: () => Promise<RecordedStep>, identity?: StepIdentity): Promise<DurableStep> {
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
