/**
 * Replay for `prosec test`: a durability that answers every step from a recorded journal (and the
 * answers written by hand in answers.json) and never runs one, and a model client that fails any
 * request, so a replay cannot reach the network whatever happens.
 *
 * A step is matched to a record:
 *   1. by content anchor (runtime/address/anchors.ts), which survives lines added or removed around the step;
 *   2. else by site (`StepAddress.site`), for journals written before anchors and for a step whose own
 *      text was edited in place: only when the record has no anchor or names the same kind and binding;
 *   3. else by a filled-in answer in answers.json (by anchor, then by key).
 * A record serves one step. A step found no way is missing: the run stops there, since what follows
 * needs its answer. A record whose request hash differs from the step's is replayed and reported.
 *
 * A step of a race's losing branch (`parallel ("first")`, `"any"`) has no record: the recorded run
 * cancelled it while its request was in flight. Replayed, the branches start together, and such a
 * step waits until the other steps stop coming (the winners are replayed at once, so the race is
 * decided by then): cancelled meanwhile, it is cancelled as it was when recorded; else it is missing.
 */
import Anthropic from "@anthropic-ai/sdk";
import { anchorSubject, type JournalRecord, dedent } from "../../runtime/stored-runs.js";
import {
  text,
  type DurableStep,
  type RecordedStep,
  type Site,
  type StepAddress,
  type StepKind,
  type StepStore,
  type Value,
} from "../../runtime/index.js";
import type { PendingAnswer } from "./golden-folder.js";

/** A step of the replayed program, as a report names it. */
export interface StepReport {
  readonly kind: StepKind;
  readonly key: string;
  readonly anchor: string;
  /** The program file (as compiled, relative to the working directory) and the step's position in it. */
  readonly source: string;
  readonly at: Site;
  readonly binding?: string;
  /** What it asks: a session's task (and the names in its context), a judgment's condition ... */
  readonly asked: string;
  readonly options?: readonly string[];
}

export interface ReplayedStep {
  readonly step: StepReport;
  /** The record as the current program keys it (what `--update` writes). */
  readonly record: JournalRecord;
  readonly from: "anchor" | "site" | "answer";
  /** The step asks something else than when it was recorded. */
  readonly changed: boolean;
}

export class ReplayDurability implements StepStore {
  readonly replayed: ReplayedStep[] = [];
  readonly missing: StepReport[] = [];
  /** Answers in answers.json that cannot be used, and why. */
  readonly badAnswers: { readonly step: StepReport; readonly reason: string }[] = [];
  private readonly byAnchor = new Map<string, JournalRecord>();
  private readonly byKey = new Map<string, JournalRecord>();
  private readonly used = new Set<JournalRecord>();
  /** Steps asked for so far: a missing step waits while this still grows (see `missingStep`). */
  private served = 0;

  constructor(
    readonly records: readonly JournalRecord[],
    private readonly answers: readonly PendingAnswer[],
  ) {
    for (const record of records) {
      if (record.anchor !== undefined) this.byAnchor.set(record.anchor, record);
      this.byKey.set(record.key, record);
    }
  }

  /** How many recorded steps the replay did not use. */
  get unused(): number {
    return this.records.length - this.used.size;
  }

  step(identity: StepAddress, execute: () => Promise<RecordedStep>, signal?: AbortSignal): Promise<DurableStep> {
    this.served++;
    const { site: key, kind } = identity;
    // A block call that finished asks no model: as recorded when the recording has it, else now.
    if (kind === "finish") {
      const recorded = this.find(key, kind, identity);
      if (recorded !== undefined) this.used.add(recorded.record);
      return recorded !== undefined
        ? Promise.resolve({ step: recorded.record, replayed: true })
        : execute().then((step) => ({ step, replayed: false }));
    }
    const step = report(key, identity);
    const found = this.find(key, kind, identity);
    if (found === undefined) {
      const pending = this.answers.find(
        (answer) =>
          answer.answer !== null && answer.kind === kind && (answer.anchor === identity.anchor || answer.key === key),
      );
      if (pending === undefined) return this.missingStep(step, signal);
      const converted = fromAnswer(pending.answer, step);
      if ("problem" in converted) {
        this.badAnswers.push({ step, reason: converted.problem });
        return Promise.reject(new Error(`its answer in answers.json cannot be used: ${converted.problem}`));
      }
      return Promise.resolve(
        this.replay(
          step,
          identity,
          {
            kind,
            value: converted.value,
            ...(kind === "judge" || kind === "choose" ? { reason: "answered in answers.json" } : {}),
            usage: [],
          },
          "answer",
          false,
        ),
      );
    }
    this.used.add(found.record);
    const changed = found.record.request !== undefined && found.record.request !== identity.request;
    return Promise.resolve(this.replay(step, identity, found.record, found.from, changed));
  }

  /**
   * A step the recording lacks: missing, unless its branch is cancelled before the replay's other
   * steps have stopped coming (one turn of the event loop that serves none).
   */
  private async missingStep(step: StepReport, signal: AbortSignal | undefined): Promise<never> {
    if (signal !== undefined) {
      let served: number;
      do {
        served = this.served;
        await new Promise<void>((resolve) => setImmediate(resolve));
      } while (!signal.aborted && served !== this.served);
      if (signal.aborted) throw new Error("the step's branch was cancelled, as when the run was recorded");
    }
    this.missing.push(step);
    throw new Error("the recording has no answer for this step");
  }

  branch<T extends Value>(_key: string, body: () => Promise<T>): Promise<T> {
    return body();
  }

  scope(): string {
    return "";
  }

  private find(
    key: string,
    kind: StepKind,
    identity: StepAddress,
  ): { record: JournalRecord; from: "anchor" | "site" } | undefined {
    const anchored = this.byAnchor.get(identity.anchor);
    if (anchored !== undefined && anchored.kind === kind && !this.used.has(anchored))
      return { record: anchored, from: "anchor" };
    const sited = this.byKey.get(key);
    if (sited === undefined || sited.kind !== kind || this.used.has(sited)) return undefined;
    if (sited.anchor !== undefined && anchorSubject(sited.anchor) !== anchorSubject(identity.anchor)) return undefined;
    return { record: sited, from: "site" };
  }

  private replay(
    step: StepReport,
    identity: StepAddress,
    recorded: RecordedStep,
    from: ReplayedStep["from"],
    changed: boolean,
  ): DurableStep {
    const { kind, value, reason, usage, failed } = recorded;
    const record: JournalRecord = {
      key: step.key,
      kind,
      value,
      ...(reason === undefined ? {} : { reason }),
      usage,
      // A failure the program caught when it was recorded: the replay throws it again.
      ...(failed === undefined ? {} : { failed }),
      anchor: identity.anchor,
      request: identity.request,
    };
    this.replayed.push({ step, record, from, changed });
    return { step: record, replayed: true };
  }
}

/** The model client of a replay: any request fails, and is remembered so the test fails too. */
export class OfflineModel {
  readonly attempts: string[] = [];
  readonly client = new Anthropic({
    apiKey: "offline",
    maxRetries: 0,
    fetch: (input) => {
      const url = input instanceof Request ? input.url : String(input);
      this.attempts.push(url);
      return Promise.reject(new Error(`prosec test replays without the network, and the run asked for ${url}`));
    },
  });
}

function report(key: string, identity: StepAddress): StepReport {
  const { ask } = identity;
  const context = (ask.details() as { context?: unknown } | undefined)?.context;
  const names = typeof context === "object" && context !== null && !Array.isArray(context) ? Object.keys(context) : [];
  const asked = `${dedent(ask.text).trim()}${names.length === 0 ? "" : `\n(context: ${names.join(", ")})`}`;
  return {
    kind: identity.kind,
    key,
    anchor: identity.anchor,
    source: identity.program.source,
    at: identity.at,
    ...(ask.binding === undefined ? {} : { binding: ask.binding }),
    asked,
    ...(ask.options === undefined ? {} : { options: ask.options }),
  };
}

/** A hand-written answer as the runtime records it, or why it cannot be one. */
function fromAnswer(answer: Value, step: StepReport): { readonly value: Value } | { readonly problem: string } {
  switch (step.kind) {
    case "session":
      return { value: text(answer) };
    case "judge":
      return typeof answer === "boolean" ? { value: answer } : { problem: "a judgment's answer is true or false" };
    case "choose": {
      const options = step.options ?? [];
      const index =
        typeof answer === "string"
          ? options.findIndex((option) => option.toLowerCase() === answer.trim().toLowerCase())
          : -1;
      return index >= 0
        ? { value: index }
        : {
            problem: `a choice's answer is one of its options: ${options.map((option) => JSON.stringify(option)).join(", ")}`,
          };
    }
    default:
      return { value: answer };
  }
}
