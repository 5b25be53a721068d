/**
 * The durability seam. Every model-facing step (session, judgment, choice, extraction, runtime input)
 * has a deterministic key (see `step-context.ts`); the run asks the journal for the key before the
 * step and records the result after it, before the next step starts. A resumed run with the same
 * journal therefore replays finished steps without calling the model.
 *
 * The in-memory journal below is the default; a file journal (`.prose/runs/`) and DBOS implement the
 * same two methods.
 */
import type { Usage, Value } from "./types.js";

export type StepKind = "session" | "judge" | "choose" | "extract" | "input";

export interface RecordedStep {
  readonly kind: StepKind;
  readonly value: Value;
  /** A judgment's or choice's reason, kept so a replay narrates the same thing. */
  readonly reason?: string;
  readonly usage: readonly Usage[];
}

export interface Journal {
  get(key: string): Promise<RecordedStep | undefined>;
  /** Resolves once the step is durable. */
  put(key: string, step: RecordedStep): Promise<void>;
}

export class MemoryJournal implements Journal {
  readonly steps = new Map<string, RecordedStep>();

  get(key: string): Promise<RecordedStep | undefined> {
    return Promise.resolve(this.steps.get(key));
  }

  put(key: string, step: RecordedStep): Promise<void> {
    this.steps.set(key, step);
    return Promise.resolve();
  }
}

/**
 * The journal of a nested program run: its keys live in the calling run's journal under the key of
 * the call, so one journal (one file, one DBOS workflow) holds a whole run with its imports.
 */
export class ScopedJournal implements Journal {
  constructor(
    private readonly parent: Journal,
    private readonly prefix: string,
  ) {}

  get(key: string): Promise<RecordedStep | undefined> {
    return this.parent.get(this.prefix + key);
  }

  put(key: string, step: RecordedStep): Promise<void> {
    return this.parent.put(this.prefix + key, step);
  }
}
