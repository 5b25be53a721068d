/**
 * How a run survives a crash: the seam between the runtime and its store. Two implementations:
 *
 * - `JournalDurability` over a `Journal` (in memory, or `.prose/runs/<id>/journal.jsonl`): steps are
 *   looked up and recorded by key, so concurrent branches need nothing of their own.
 * - `DbosDurability` (`runtime/dbos/`): every step is a DBOS checkpoint and every concurrent branch a
 *   child workflow, because DBOS numbers a workflow's steps in the order they are reached.
 */
import { RunStateError, WaitingForInput } from "../errors.js";
import { changeReason } from "../address/step-keys.js";
import type {
  Conversation,
  Durability,
  DurableStep,
  Journal,
  RecordedStep,
  SessionSteps,
  Site,
  StepIdentity,
  StepKind,
  Value,
} from "../types.js";

/** What a resumed run reused and ran again (`prosec run --resume` says it at the end). */
export class ResumeReport {
  /** `edited`: the program changed since the run recorded its steps (else only settings may have). */
  constructor(readonly edited = true) {}

  reused = 0;
  added = 0;
  readonly rerun: Array<{ readonly line: number | undefined; readonly reason: string }> = [];

  /** How many steps ran again for each reason (`prompt changed`, `model changed`, ...). */
  reasons(): { readonly [reason: string]: number } {
    const counts: Record<string, number> = {};
    for (const { reason } of this.rerun) counts[reason] = (counts[reason] ?? 0) + 1;
    return counts;
  }

  /** `reused 14 steps; re-running 2 from line 40 (prompt changed), 3 new` */
  summary(): string {
    const parts = [`reused ${this.reused} ${this.reused === 1 ? "step" : "steps"}`];
    if (this.rerun.length > 0) {
      const first = this.rerun[0]!;
      const reasons = [...new Set(this.rerun.map((step) => step.reason))].join(", ");
      parts.push(
        `re-running ${this.rerun.length}${first.line === undefined ? "" : ` from line ${first.line}`} (${reasons})`,
      );
    }
    if (this.added > 0) parts.push(`${this.added} new`);
    return parts.join("; ");
  }
}

export class JournalDurability implements Durability {
  /**
   * `report`: a resumed run's account of what it reused, kept when it is to be told. `rerun`: finished
   * tool calls with an effect may run again (`--rerun`); without it a step that would repeat them
   * stops the run (`RerunRefused`).
   */
  constructor(
    readonly journal: Journal,
    readonly report?: ResumeReport,
    readonly rerun = false,
  ) {}

  async step(
    key: string,
    kind: StepKind,
    execute: () => Promise<RecordedStep>,
    identity?: StepIdentity,
  ): Promise<DurableStep> {
    const recorded = await this.journal.get(key);
    if (recorded !== undefined && recorded.kind !== kind) throw new StepMismatch(key, recorded.kind);
    // A step recorded before fingerprints (step scheme 1) is replayed by its key alone.
    if (
      recorded !== undefined &&
      (identity === undefined || recorded.fingerprint === undefined || recorded.fingerprint === identity.fingerprint)
    )
      return { step: recorded, replayed: true };
    const earlier = identity === undefined ? undefined : this.journal.reusable?.(identity.key);
    if (identity !== undefined && earlier?.kind === kind && earlier.fingerprint === identity.fingerprint) {
      // Recorded under this step's own key too, so the run resumes as any other from now on.
      await this.journal.put(key, { ...earlier, reused: true }, identity);
      if (this.report !== undefined) this.report.reused++;
      return { step: earlier, replayed: true };
    }
    const before = recorded ?? earlier;
    if (identity !== undefined && this.journal.beginStep !== undefined) {
      let refused: readonly string[] | undefined;
      this.journal.beginStep(key, identity, (effects) => {
        if (!this.rerun) refused = effects;
        return this.rerun;
      });
      if (refused !== undefined)
        throw new RerunRefused({ kind: identity.kind, at: identity.at, file: identity.program.source }, refused);
    }
    if (this.report !== undefined && identity !== undefined) {
      if (before?.fingerprint === undefined || before.kind !== kind) this.report.added++;
      else
        this.report.rerun.push({
          line: identity.at.line,
          reason: changeReason(before.fingerprint, identity.fingerprint, before.model, identity.model),
        });
    }
    const step = await execute();
    await this.journal.put(key, step, identity);
    return { step, replayed: false };
  }

  conversation(key: string): Conversation | undefined {
    return this.journal.conversation?.(key);
  }

  /** Journaled at once (a run folder's journal appends in call order), so it precedes the steps that follow. */
  recordFailure(key: string, step: RecordedStep, identity?: StepIdentity): void {
    void this.journal.put(key, step, identity);
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

  recordFailure(key: string, step: RecordedStep, identity?: StepIdentity): void {
    this.parent.recordFailure?.(this.prefix + key, step, identity);
  }

  recorded(key: string): Promise<boolean> {
    return this.parent.recorded?.(this.prefix + key) ?? Promise.resolve(false);
  }

  /** The key the run's store knows a step of this program by. */
  fullKey(key: string): string {
    return this.parent instanceof ScopedDurability ? this.parent.fullKey(this.prefix + key) : this.prefix + key;
  }

  conversation(key: string): Conversation | undefined {
    return this.parent.conversation?.(this.prefix + key);
  }

  sessionSteps(key: string, signal?: AbortSignal): SessionSteps | undefined {
    return this.parent.sessionSteps?.(this.prefix + key, signal);
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

/**
 * A resumed step would run again tool calls that finished with an effect (a command, an edited or
 * written file): its prompt, agent, model, settings or what it reads changed since, or a session under
 * way starts over. A finished tool call never runs again unless the user says so (`--rerun`).
 */
export class RerunRefused extends RunStateError {
  /**
   * `why`: what changed, when it is known (`its model changed (a → b)`); a step refused as it is
   * reached may have changed in any of the ways its fingerprint covers.
   */
  constructor(
    step: { readonly kind: string; readonly at: Site; readonly file: string },
    effects: readonly string[],
    why = "it changed (its prompt, agent, model, settings or what it reads)",
  ) {
    super(
      `Resuming would run again what the ${step.kind} at line ${step.at.line} already did, since ${why} after these tool calls finished: ${effects.join(", ")}. A finished tool call never runs again unasked: restore the program and settings as they were, fork the run from an earlier line (--from LINE), or resume with --rerun to run them again.`,
      { at: step.at, file: step.file },
    );
  }
}
