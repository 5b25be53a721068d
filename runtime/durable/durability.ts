/**
 * How a run survives a crash: the seam between the runtime and its store (`StepStore`). Two
 * implementations:
 *
 * - `JournalStepStore` over a `Journal` (in memory, or `.prose/runs/<id>/journal.jsonl`): steps are
 *   looked up and recorded by site, so concurrent branches need nothing of their own.
 * - `DbosDurability` (`runtime/dbos/`): every step is a DBOS checkpoint and every concurrent branch a
 *   child workflow, because DBOS numbers a workflow's steps in the order they are reached.
 */
import { RunStateError, WaitingForInput } from "../errors.js";
import { addressUnder } from "../address/step-address.js";
import { changeReason } from "../address/step-keys.js";
import type {
  Conversation,
  DurableStep,
  Journal,
  RecordedStep,
  SessionSteps,
  Site,
  StepAddress,
  StepStore,
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

export class JournalStepStore implements StepStore {
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

  async step(address: StepAddress, execute: () => Promise<RecordedStep>): Promise<DurableStep> {
    const { site, kind } = address;
    const recorded = await this.journal.get(site);
    if (recorded !== undefined && recorded.kind !== kind) throw new StepMismatch(site, recorded.kind);
    // A step recorded before fingerprints (step scheme 1) is replayed by its site alone.
    if (recorded !== undefined && (recorded.fingerprint === undefined || recorded.fingerprint === address.fingerprint))
      return { step: recorded, replayed: true };
    const earlier = this.journal.reusable?.(address.structure);
    if (earlier?.kind === kind && earlier.fingerprint === address.fingerprint) {
      // Recorded under this step's own site too, so the run resumes as any other from now on.
      await this.journal.put(site, { ...earlier, reused: true }, address);
      if (this.report !== undefined) this.report.reused++;
      return { step: earlier, replayed: true };
    }
    const before = recorded ?? earlier;
    if (this.journal.beginStep !== undefined) {
      let refused: readonly string[] | undefined;
      this.journal.beginStep(site, address, (effects) => {
        if (!this.rerun) refused = effects;
        return this.rerun;
      });
      if (refused !== undefined)
        throw new RerunRefused({ kind, at: address.at, file: address.program.source }, refused);
    }
    if (this.report !== undefined) {
      if (before?.fingerprint === undefined || before.kind !== kind) this.report.added++;
      else
        this.report.rerun.push({
          line: address.at.line,
          reason: changeReason(before.fingerprint, address.fingerprint, before.model, address.model),
        });
    }
    const step = await execute();
    await this.journal.put(site, step, address);
    return { step, replayed: false };
  }

  conversation(site: string): Conversation | undefined {
    return this.journal.conversation?.(site);
  }

  /** Journaled at once (a run folder's journal appends in call order), so it precedes the steps that follow. */
  recordFailure(address: StepAddress, step: RecordedStep): void {
    void this.journal.put(address.site, step, address);
  }

  branch<T extends Value>(_key: string, body: () => Promise<T>): Promise<T> {
    return body();
  }

  scope(): string {
    return "";
  }
}

/** The step store of a program called from another program's run: its sites live under the call's. */
export class ScopedStepStore implements StepStore {
  readonly awaitAnswer?: StepStore["awaitAnswer"];

  constructor(
    private readonly parent: StepStore,
    private readonly prefix: string,
  ) {
    const awaitAnswer = parent.awaitAnswer?.bind(parent);
    if (awaitAnswer !== undefined)
      this.awaitAnswer = (site, question, timeoutSeconds) =>
        awaitAnswer(prefix + site, { ...question, key: prefix + question.key }, timeoutSeconds);
  }

  async step(address: StepAddress, execute: () => Promise<RecordedStep>, signal?: AbortSignal): Promise<DurableStep> {
    try {
      return await this.parent.step(addressUnder(this.prefix, address), execute, signal);
    } catch (error) {
      // The question is answered under the key the run's store knows it by.
      throw error instanceof WaitingForInput ? error.prefixed(this.prefix) : error;
    }
  }

  recordFailure(address: StepAddress, step: RecordedStep): void {
    this.parent.recordFailure?.(addressUnder(this.prefix, address), step);
  }

  recorded(site: string): Promise<boolean> {
    return this.parent.recorded?.(this.prefix + site) ?? Promise.resolve(false);
  }

  /** The site the run's store knows a step of this program by. */
  fullSite(site: string): string {
    return this.parent instanceof ScopedStepStore ? this.parent.fullSite(this.prefix + site) : this.prefix + site;
  }

  conversation(site: string): Conversation | undefined {
    return this.parent.conversation?.(this.prefix + site);
  }

  sessionSteps(site: string, signal?: AbortSignal): SessionSteps | undefined {
    return this.parent.sessionSteps?.(this.prefix + site, signal);
  }

  branch<T extends Value>(site: string, body: () => Promise<T>): Promise<T> {
    return this.parent.branch(this.prefix + site, body);
  }

  scope(): string {
    return this.parent.scope();
  }
}

/** A recorded step of another kind where this program now has a step: the program changed. */
export class StepMismatch extends Error {
  constructor(
    readonly site: string,
    readonly recordedKind: string,
  ) {
    super(`The recorded run does not match this program (step ${site} was a ${recordedKind}).`);
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
