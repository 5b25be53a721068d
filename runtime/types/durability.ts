/**
 * The step store: journals and the seam between the runtime and its store (durable/durability.ts),
 * and the step address they find steps by (address/).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { FailureCause, Usage } from "./events.js";
import type { Site, Value } from "./program.js";

/** `finish`: a block call whose bindings are read outside it ended (run/last-call.ts); no model is asked. */
export type StepKind = "session" | "judge" | "choose" | "extract" | "input" | "finish";

export interface RecordedStep {
  readonly kind: StepKind;
  readonly value: Value;
  /** A judgment's or choice's reason, kept so a replay narrates the same thing. */
  readonly reason?: string;
  readonly usage: readonly Usage[];
  /** The model answers the step took when it was more than one (re-asks, continuations). */
  readonly attempts?: number;
  /** Each unexpected answer on the way, described (docs/model-answers.md). */
  readonly problems?: readonly string[];
  /** A session's answer kept although still cut off at `max_tokens` (`onTruncation: "keep"`). */
  readonly truncated?: true;
  /**
   * The step's content anchor (`StepAddress.anchor`): what `prosec test` matches a recorded step
   * by, so a golden test survives lines added above a step. Absent in journals written before it.
   */
  readonly anchor?: string;
  /**
   * The hash of what the step asked (`StepAddress.request`): a replay reports a step whose request
   * changed. Journals before step scheme 4 call it `requestHash` (read as `request`).
   */
  readonly request?: string;
  /**
   * The step's structure (`StepAddress.structure`); absent in journals written before step scheme 2,
   * and called `step` before scheme 4 (read as `structure`).
   */
  readonly structure?: string;
  /** What the step depended on (`StepAddress.fingerprint`); absent before step scheme 2. */
  readonly fingerprint?: string;
  /** The model the step asked (`StepModel`); absent for steps that ask none, and in journals written before it. */
  readonly model?: StepModel;
  /** The agent a session runs as (`session: writer`); absent without one, and in journals written before it. */
  readonly agent?: string;
  /** Taken over from an earlier text of the program, or from the run a fork started from: paid for there. */
  readonly reused?: true;
  /**
   * The step failed and the program's `catch:` took its error (failed-steps.ts): a replay throws the
   * same error again, so the run takes the same path. `value` is null. Absent in journals before it.
   */
  readonly failed?: FailedStep;
  /**
   * What a persistent agent's session adds to the agent's memory (steps/memory.ts): recorded with the
   * step and written to the memory folder after it, so a crash between the two loses nothing and a
   * replay writes it where the folder lacks it. Absent in journals before it (the memory was written
   * before the step's record then).
   */
  readonly remembered?: RememberedSession;
}

/** A session's addition to its agent's memory, as its step records it. */
export interface RememberedSession {
  /** The run that recorded the session, and the step's site: its segment names both, so it is written once. */
  readonly run: string;
  readonly step: string;
  /** The agent's new memory (`update_memory`), when it gave one; else `summary` is added to its memory. */
  readonly memory?: string;
  readonly summary: string;
  /** When the session finished (ISO 8601). */
  readonly timestamp: string;
}

/**
 * A step's model as the program names it (`sonnet`; `""` for the default) and the id it resolved to
 * (`PROSEC_MODEL_SONNET`, `RunOptions.models`): a resumed run whose settings resolve the name to
 * another id says the model changed, and refuses before its first request a step whose finished tool
 * calls that would repeat.
 */
export interface StepModel {
  readonly name: string;
  readonly id: string;
}

/**
 * How a step failed, as its error said it: an API error after the retries, a refusal, an answer that
 * failed validation (a judgment's or choice's re-asks spent; a typed result's `returns:` check is
 * recorded the same way), a time limit. Enough to build the same ProseError again.
 */
export interface FailedStep {
  /** The error's text without its location (`ProseError.reason`). */
  readonly reason: string;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  /** The session the error names (`ProseError.session`). */
  readonly session?: string;
  /** What kind of failure, for people and tools reading the journal. */
  readonly cause: FailureCause;
}

/**
 * One event of a session's conversation (`durable/conversation.ts`): journaled as the session goes, so
 * a resumed run rebuilds the conversation and sends only the next turn.
 */
export type TurnEvent =
  | {
      readonly type: "response";
      readonly content: readonly Anthropic.ContentBlockParam[];
      readonly stop: string | null;
      readonly usage: Usage;
      /** Set on a session's first response when its task block carried a cache breakpoint (`caching.ts`). */
      readonly cachedTask?: true;
      /**
       * Tool calls whose id the conversation had already, given an id of their own in `content`: the
       * id given, with the id the model wrote. Each is answered with an error, never run (`tool-ids.ts`).
       */
      readonly renamed?: { readonly [id: string]: string };
    }
  | { readonly type: "tool-started"; readonly id: string; readonly name: string }
  | { readonly type: "tool-finished"; readonly id: string; readonly result: Anthropic.ToolResultBlockParam }
  /** A reply cut off at max_tokens; the session asked the model to go on (`unexpected-answers.ts`). */
  | {
      readonly type: "continued";
      readonly content: readonly Anthropic.ContentBlockParam[];
      readonly usage: Usage;
    }
  /** Old tool results replaced by notes to bound the conversation (`tool-output.ts`), each note as sent. */
  | { readonly type: "elided"; readonly results: readonly { readonly id: string; readonly content: string }[] }
  | { readonly type: "restart" }
  /** A call stopped before it ran, for a person to approve (`tools/approvals.ts`): it has not started. */
  | { readonly type: "approval-pending"; readonly id: string };

/** Where a session's turn events are kept: the run's journal, under the session step's site. */
export interface Conversation {
  /** The events recorded so far, oldest first. */
  readonly events: readonly TurnEvent[];
  /** Records an event; it is durable when this returns. */
  append(event: TurnEvent): void;
}

/** A model turn's outcome as a session reads it: the reply and what it cost. */
export interface ModelTurn {
  readonly message: Anthropic.Message;
  readonly usage: Usage;
}

/**
 * How a session's model turns and tool calls run (`steps/session.ts`). Where the run's journal keeps
 * the conversation (file runs) they are plain calls (`durable/conversation.ts`). On DBOS, whose steps do
 * not nest, each is a checkpoint of its own (`dbos/session-steps.ts`): a recovered session reads the
 * responses and results that finished instead of asking or running them again.
 */
/** A person's answer to a tool call's approval, and the key of the question it answers (approvals.ts). */
export interface DeliveredAnswer {
  readonly answer: Value;
  readonly key: string;
}

export interface SessionSteps {
  /** One request to the model: `ask` checks the turn boundary, then asks. */
  turn(ask: () => Promise<ModelTurn>): Promise<ModelTurn>;
  /**
   * One tool call: `start` checks the tool boundary and records that the call started, then `run`
   * runs it. A call that finished never runs again; one that started and did not finish gets what
   * `unfinishedCall` (durable/conversation.ts) says; `repeatable`: the tool's definition says it may run again.
   */
  toolCall(
    call: Anthropic.ToolUseBlock,
    start: () => Promise<void>,
    /** Runs the call; `delivered` is a person's answer to its approval, when the store waited for one. */
    run: (delivered?: DeliveredAnswer) => Promise<Anthropic.ToolResultBlockParam>,
    repeatable?: boolean,
  ): Promise<Anthropic.ToolResultBlockParam>;
  /** What the session does besides its turns that must happen once (recording a persistent agent's memory). */
  once<T extends Value>(name: string, effect: () => Promise<T>): Promise<T>;
}

/** Where a run's steps are recorded, by site (`StepAddress.site`): the record's `key`. */
export interface Journal {
  get(site: string): Promise<RecordedStep | undefined>;
  /**
   * Resolves once the step is durable. A journal that is kept (a run folder's) records the step's
   * `address` too: its anchor and request, what `prosec test` matches and compares, its structure
   * and fingerprint, what a resumed run of an edited program matches by.
   */
  put(site: string, step: RecordedStep, address?: StepAddress): Promise<void>;
  /** The turn events of the session step at `site` (a journal without it keeps no turns: a resumed session starts over). */
  conversation?(site: string): Conversation;
  /** A recorded step by structure (`StepAddress.structure`), for a run whose program changed; a journal without it reuses nothing so. */
  reusable?(structure: string): RecordedStep | undefined;
  /**
   * Before the step at `site` runs: lines its conversation up with `address` (a session under way is
   * continued by structure when its fingerprint is unchanged, and started over when it changed)
   * and returns the finished tool calls with an effect that running it would repeat (of a finished
   * step recorded with another fingerprint, or of a session under way that starts over).
   * `proceed` says whether to go on anyway (`--rerun`); when it does not, nothing is changed.
   */
  beginStep?(site: string, address: StepAddress, proceed: (effects: readonly string[]) => boolean): void;
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
  /** The input step's site (`StepAddress.site`): where its answer is recorded (journal) or sent (DBOS topic). */
  readonly key: string;
  readonly at: Site;
  /** The name of the program that asks it (`gate` for `imp/gate.prose`): `prosec answer RUN gate.confirm=...`. */
  readonly program?: string;
  /** That program's source path, which `at` is in (a called program's, not its caller's). */
  readonly source?: string;
  /** `(timeout: N)`: when the wait ends (ISO time), set when the run first stops at it. */
  readonly deadline?: string;
}

/**
 * Every identity of a step, each named once, and the step it names (runtime/README.md, "Step
 * addresses"; `address/` computes it). A run's store is handed one with every step.
 */
export interface StepAddress {
  /**
   * Where the step was reached, by call site: its context path and `kind@line:column#occurrence`
   * (`/parallel@10:1#0/b0/session@11:13#0`). What the store keys the step by (the journal's `key`, a
   * DBOS checkpoint's name, the trace's `key`) and what `--resume` of an unchanged program replays by.
   */
  readonly site: string;
  /** By content (`session:brief@3f2a9c1e#0`): what `prosec test` matches a golden step by, across moved lines. */
  readonly anchor: string;
  /** By structure (`session:draft#1`, `session@s4.0~3#0`): what a resumed run of an edited program matches by. */
  readonly structure: string;
  /** What the step depends on (`asks-how-reads`): a step found by structure is reused only while it is unchanged. */
  readonly fingerprint: string;
  /** The hash of what the step asks: equal hashes mean the model would be asked the same thing. */
  readonly request: string;
  readonly kind: StepKind;
  /** The construct's line and column in its program. */
  readonly at: Site;
  /** The program the step belongs to: its name and source path (a called program's, inside `use`). */
  readonly program: { readonly name: string; readonly source: string };
  readonly ask: StepAsk;
  /** The model it asks, for the steps that ask one. */
  readonly model?: StepModel;
  /** The agent it runs as, for a session that has one. */
  readonly agent?: string;
}

export interface DurableStep {
  readonly step: RecordedStep;
  /** Whether the outcome came from the store rather than from running the step now. */
  readonly replayed: boolean;
}

/** The seam between a run and the store of its steps: a journal (`JournalStepStore`) or DBOS. */
export interface StepStore {
  /**
   * Runs a model-facing step once per run: a resumed run gets the recorded outcome back instead.
   * A store that keys steps by site alone can ignore the rest of the `address`. `signal` is the
   * signal of the branch the step runs in: aborted when that branch is cancelled (a lost race).
   */
  step(address: StepAddress, execute: () => Promise<RecordedStep>, signal?: AbortSignal): Promise<DurableStep>;
  /** Where the session step at `site` journals its turns while it runs (none: a resumed session starts over). */
  conversation?(site: string): Conversation | undefined;
  /**
   * How the session step at `site` runs its turns and tool calls (none: as plain calls); `signal` is the
   * step's own (its time limit stops while the step waits for a person).
   */
  sessionSteps?(site: string, signal?: AbortSignal): SessionSteps | undefined;
  /**
   * Records a step that failed and whose error the program caught (`step.failed` set): a resumed run
   * replays the failure. A store without it (DBOS) runs such a step again when the run is resumed.
   */
  recordFailure?(address: StepAddress, step: RecordedStep): void;
  /**
   * Whether the store holds an outcome (or a turn) of the step at `site` from an earlier execution. A store
   * that replays steps in the order they ran (DBOS) says so, so that a cancelled branch replays what
   * it ran before its cancellation and stops where it stopped then; a store keyed by site (the
   * journal) needs no such thing and leaves it out.
   */
  recorded?(site: string): Promise<boolean>;
  /** Runs one of several concurrent bodies (a `parallel:` branch, a `parallel for` item). */
  branch<T extends Value>(site: string, body: () => Promise<T>): Promise<T>;
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
    site: string,
    question: Question,
    timeoutSeconds: number | undefined,
  ): Promise<{ readonly value: Value } | undefined>;
}
