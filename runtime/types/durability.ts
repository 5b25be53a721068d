/**
 * Durability: journals and the seam between the runtime and its store (durable/durability.ts).
 */
import type { Usage } from "./events.js";
import type { Site, Value } from "./program.js";

/** `finish`: a block call whose bindings are read outside it ended (run/last-call.ts); no model is asked. */
export type StepKind = "session" | "judge" | "choose" | "extract" | "input" | "finish";

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

/** What a step asks, as the program put it. */
export interface StepAsk {
  /** The name the step's result is bound to (a session's binding, an input's name). */
  readonly binding?: string;
  /** One readable text: a session's task, a judgment's condition, a choice's criteria, the text read. */
  readonly text: string;
  /** A choice's option labels. */
  readonly options?: readonly string[];
  /**
   * Everything that shapes the request (prompt, context values, agent, scope ...): what is hashed.
   * A function, so a run whose store does not keep the hash never builds it.
   */
  details(): unknown;
}

/** An input a run waits for: what `prosec answer` and a resume with `--input` answer. */
export interface Question {
  readonly name: string;
  readonly prompt: string;
  /** The input's step key: where its answer is recorded (journal) or sent (DBOS topic). */
  readonly key: string;
  readonly at: Site;
  /** `(timeout: N)`: when the wait ends (ISO time), set when the run first stops at it. */
  readonly deadline?: string;
}

/**
 * Who a step is and what it asks, handed to the durability with every step (`step-identity.ts`
 * makes it). None of it is part of the step key, which stays what `--resume` replays by.
 */
export interface StepIdentity {
  readonly kind: StepKind;
  readonly at: Site;
  /** The content-anchored counterpart of the step key (`anchors.ts`). */
  readonly anchor: string;
  /** The program the step belongs to: its name and source path (a called program's, inside `use`). */
  readonly program: { readonly name: string; readonly source: string };
  readonly ask: StepAsk;
  /** A hash of what the step asks: equal hashes mean the model would be asked the same thing. */
  readonly requestHash: string;
}

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
  step(
    key: string,
    kind: StepKind,
    execute: () => Promise<RecordedStep>,
    identity?: StepIdentity,
  ): Promise<DurableStep>;
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
  awaitAnswer?(
    key: string,
    question: Question,
    timeoutSeconds: number | undefined,
  ): Promise<{ readonly value: Value } | undefined>;
}
