/**
 * The durability seam. Every model-facing step (session, judgment, choice, extraction, runtime input)
 * has a deterministic key (see `step-context.ts`); the run asks the journal for the key before the
 * step and records the result after it, before the next step starts. A resumed run with the same
 * journal therefore replays finished steps without calling the model.
 *
 * The in-memory journal below is the default; the file journal (`.prose/runs/`) implements the same two
 * methods. Both sit behind `JournalDurability` (durability.ts).
 */
import type { StepIdentity } from "./step-identity.js";
import type { Usage, Value } from "./types.js";

export type StepKind = "session" | "judge" | "choose" | "extract" | "input";

export interface RecordedStep {
  readonly kind: StepKind;
  readonly value: Value;
  /** A judgment's or choice's reason, kept so a replay narrates the same thing. */
  readonly reason?: string;
  readonly usage: readonly Usage[];
  /**
   * The step's content-anchored identity (`anchors.ts`): what `prosec test` matches a recorded step
   * by, so a golden test survives lines added above a step. Absent in journals written before it.
   */
  readonly anchor?: string;
  /** A hash of what the step asked (`step-identity.ts`): a replay reports a step whose request changed. */
  readonly requestHash?: string;
}

export interface Journal {
  get(key: string): Promise<RecordedStep | undefined>;
  /**
   * Resolves once the step is durable. A journal that is kept (a run folder's) records the step's
   * `identity` too: its anchor and request hash, what `prosec test` matches and compares.
   */
  put(key: string, step: RecordedStep, identity?: StepIdentity): Promise<void>;
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
