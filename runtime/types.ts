/**
 * The contract between generated workflow modules and the runtime.
 *
 * Generated code imports only from `prosec/runtime` and only uses what this file declares (plus
 * `defineProgram` / `startRun` and the value helpers exported from `runtime/index.ts`). Anything
 * here is public API: additions are fine, changes break every committed workflow.
 *
 * Every type of the runtime lives here, so that this module imports nothing of the runtime but its
 * vocabulary, and no module of the runtime takes part in an import cycle (a test checks).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type {
  Backoff,
  FailurePolicy,
  JoinStrategy,
  PermissionAsked,
  PermissionMode,
  PersistScope,
} from "./vocabulary.js";

export type {
  Backoff,
  FailurePolicy,
  JoinStrategy,
  ModelName,
  PermissionAsked,
  PermissionKind,
  PermissionMode,
  PersistScope,
} from "./vocabulary.js";

/** What a `.prose` value can be at run time. Session results are text. */
export type Value = string | number | boolean | null | readonly Value[] | { readonly [key: string]: Value };

/** Where a runtime call came from in the `.prose` source (1-based, as editors show). */
export interface Site {
  readonly line: number;
  readonly column: number;
}

/** `permissions:` of an agent or session. Globs are relative to the run's working directory. */
export interface Permissions {
  readonly read?: readonly string[];
  readonly write?: readonly string[];
  readonly execute?: readonly string[];
  readonly bash?: PermissionMode;
  /** `allow` / `deny` / `prompt`, or a list of URL patterns that may be fetched. */
  readonly network?: PermissionMode | readonly string[];
  /** Names of environment variables this agent's tool processes get, on top of PATH, HOME and the like. */
  readonly env?: readonly string[];
  /**
   * `read: prompt`, `write: prompt`, `execute: prompt`: each path read or written, or command run,
   * that the lists above allow is also put to `RunOptions.onPermission` (refused without it).
   */
  readonly ask?: readonly PermissionAsked[];
}

export type Persist = boolean | PersistScope | { readonly path: string };

/**
 * What a session is given to work with. A record maps binding names to values (`context: { a, b }`
 * or `context: [a, b]` lowered to their names); strings are file paths or globs to read.
 */
export type ContextSpec = { readonly [name: string]: Value } | readonly string[];

/** Properties shared by `agent` definitions and sessions (a session's override its agent's). */
export interface SessionSettings {
  readonly model?: string;
  readonly prompt?: string;
  readonly persist?: Persist;
  readonly skills?: readonly string[];
  readonly permissions?: Permissions;
  readonly retry?: number;
  readonly backoff?: Backoff;
  readonly context?: ContextSpec;
  /** Properties the language does not define (W005), passed through to the model as notes. */
  readonly extra?: { readonly [key: string]: Value };
}

export interface AgentDefinition extends SessionSettings {
  readonly name: string;
}

export interface SessionRequest extends SessionSettings {
  readonly at: Site;
  readonly agent?: AgentDefinition;
  /** `session "Label"` with a `prompt:` property: the label shown in traces. */
  readonly label?: string;
  /** The name a result is bound to, when there is one (for traces and binding files). */
  readonly binding?: string;
  /**
   * A `filter:` stage's verdict: the agent is offered an `answer(keep, reason)` tool (forced when it has
   * no other tool), and a call of it is the session's result, `yes: <reason>` or `no: <reason>`.
   */
  readonly keep?: boolean;
  /** An unbound result (a statement of its own, the end of a `->` chain): it joins the trail. */
  readonly unbound?: true;
}

export interface InputDefinition {
  readonly name: string;
  readonly prompt: string;
  /** `true` for a prompt written as `**...**`: the model phrases the question. */
  readonly discretion?: boolean;
  /**
   * `true` for an input asked mid-program (not a parameter): optional in `Inputs`, and a run that
   * reaches it unanswered with no one to ask waits for input (`WaitingForInput`).
   */
  readonly midProgram?: boolean;
  /** `input x: "..." (timeout: N)`: a run waits at most N seconds for the answer, then the input fails. */
  readonly timeoutSeconds?: number;
  /** `input x: <value>` (in a program's `inputs`): it need not be given, it has a default. */
  readonly hasDefault?: boolean;
  /** Where the input stands, for `input x: <value>`: the value it takes when not answered ahead. */
  readonly default?: Value;
}

/** Static facts about a compiled program; the default export of every generated module. */
export interface ProgramInfo {
  readonly name: string;
  /** The source path as given to the compiler, with `/` separators. */
  readonly source: string;
  /** sha256 of the source text: a resumed run refuses a program whose hash changed. */
  readonly sourceHash: string;
  readonly compilerVersion: string;
  readonly inputs: readonly InputDefinition[];
  readonly outputs: readonly string[];
  /** The `.prose` source itself: a durable run keeps a copy and quotes it in its state files. */
  readonly text?: string;
  /** The static bound on the program's model calls and tokens (see `ProgramCost`), for budgets and apps. */
  readonly cost?: ProgramCost;
}

export interface ParallelOptions {
  readonly join?: JoinStrategy;
  /** With `"any"`: how many branches must succeed (default 1). */
  readonly count?: number;
  readonly onFail?: FailurePolicy;
}

/** One `parallel:` branch; `signal` aborts when a `"first"` / `"any"` race is decided. */
export type Branch<T extends Value = Value> = (signal: AbortSignal) => Promise<T>;

/**
 * Result of `Runtime.parallel`, index-aligned with the branches. A branch that failed under
 * `on-fail: "continue"` holds an error record `{ error: message }`; under `"ignore"` or when it lost
 * a race it holds `null`.
 */
export type ParallelResult = readonly Value[];

/** What a failed branch holds under `on-fail: "continue"`. */
export type FailureRecord = { readonly error: string };

/** A branch's value after the join under failure policy `P`: under `continue` an error record, under `ignore` `null`. */
export type BranchValue<T, P extends FailurePolicy> = P extends "continue"
  ? T | FailureRecord
  : P extends "ignore"
    ? T | null
    : T;

/** `Runtime.branches`: one promise per branch, in order, for `Promise.all`. */
export type JoinedBranches<T extends readonly Branch[], P extends FailurePolicy> = {
  -readonly [K in keyof T]: Promise<BranchValue<Awaited<ReturnType<T[K]>>, P>>;
};

/** `Runtime.first` / `Runtime.any`: every slot, in order; a branch that lost the race holds `null`. */
export type RacedBranches<T extends readonly Branch[], P extends FailurePolicy> = {
  -readonly [K in keyof T]: BranchValue<Awaited<ReturnType<T[K]>>, P> | null;
};

export interface RunEventBase {
  readonly at?: Site;
  /** The source file `at` is in, on the events of a program called from another (`Runtime.call`). */
  readonly source?: string;
  /** Milliseconds since the run started. */
  readonly time: number;
}

/**
 * Model usage of one call, summed per run in the `run-end` event. `inputTokens` are the input tokens
 * billed at the base rate; with prompt caching, `cacheWriteTokens` (billed 1.25x) and `cacheReadTokens`
 * (billed 0.1x) come on top: the request's whole input is the sum of the three.
 */
export interface Usage {
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheWriteTokens?: number;
  readonly cacheReadTokens?: number;
}

/** The narration: one event per step, for the CLI to display and for users to log. */
export type RunEvent =
  | (RunEventBase & { readonly type: "run-start"; readonly runId: string; readonly program: string })
  | (RunEventBase & { readonly type: "position"; readonly statement: string })
  | (RunEventBase & {
      readonly type: "session-start";
      readonly label: string;
      readonly agent?: string;
      readonly trail?: readonly string[];
    })
  | (RunEventBase & {
      readonly type: "session-end";
      readonly label: string;
      readonly usage: readonly Usage[];
      readonly replayed: boolean;
    })
  | (RunEventBase & { readonly type: "binding"; readonly name: string; readonly preview: string })
  | (RunEventBase & {
      readonly type: "judgment";
      readonly asks?: JudgmentAsker | "choice";
      readonly question: string;
      readonly answer: string;
      readonly reason: string;
      readonly trail?: readonly string[];
    })
  | (RunEventBase & {
      readonly type: "extraction";
      readonly shape: "list" | "field" | "boolean";
      readonly method: "parse" | "model";
    })
  /** A list was read (`for x in`, a pipeline stage): its size, what a cost bound's `|items|` stands for. */
  | (RunEventBase & { readonly type: "list"; readonly items: number })
  | (RunEventBase & { readonly type: "parallel-start"; readonly branches: number })
  | (RunEventBase & { readonly type: "parallel-end"; readonly succeeded: number; readonly failed: number })
  | (RunEventBase & { readonly type: "loop-iteration"; readonly iteration: number })
  | (RunEventBase & {
      readonly type: "tool";
      readonly tool: string;
      readonly allowed: boolean;
      readonly detail: string;
    })
  | (RunEventBase & { readonly type: "error"; readonly message: string })
  /** The run stops waiting for these inputs (see `WaitingForInput`); `run-end` follows. */
  | (RunEventBase & {
      readonly type: "waiting";
      readonly questions: readonly { readonly name: string; readonly prompt: string; readonly line: number }[];
    })
  | (RunEventBase & {
      readonly type: "run-end";
      readonly ok: boolean;
      readonly usage: readonly Usage[];
      /** A program that declares no outputs returns its final result (prose.md), as text: its last top-level statement's value. */
      readonly result?: string;
    });

/**
 * The object a generated program's body receives. Every method takes the `Site` it was called
 * from, so errors and traces point at the `.prose` line. Control flow stays in generated code
 * (plain `if`, `for`, `while`, `try`); the runtime owns what needs a model, concurrency or state.
 */
/** The construct a judgment answers for: what its answer does. */
export type JudgmentAsker = "if" | "elif" | "until" | "while" | "assert" | "condition";

export interface LoopSequence {
  next(): void;
  end(): void;
}

export interface Runtime {
  /** Runs a session (a fresh agent) and returns its text result. */
  session(request: SessionRequest): Promise<string>;
  /** `resume: agent`: a session of a persistent agent that loads and updates its memory. */
  resume(agent: AgentDefinition, request: SessionRequest): Promise<string>;
  /**
   * `**condition**`: the model decides, seeing the (interpolated) text, which construct asks, the
   * bindings in scope and the trail.
   */
  judge(at: Site, condition: string, scope: { readonly [name: string]: Value }, asks?: JudgmentAsker): Promise<boolean>;
  /** `choice **criteria**:` returns the index of the chosen option label. */
  choose(
    at: Site,
    criteria: string,
    options: readonly string[],
    scope: { readonly [name: string]: Value },
  ): Promise<number>;
  /** An `input` value: supplied inputs first, then `RunOptions.onInput`; else an error naming it. */
  input(at: Site, definition: InputDefinition): Promise<Value>;
  /**
   * `parallel:` (join `all`): starts every branch, each in a context of its own (its step keys, its
   * abort signal), and returns one promise per branch settled by the failure policy, for
   * `Promise.all`. Under `fail-fast` a failing branch rejects and cancels its siblings.
   */
  branches<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly onFail?: P },
    branches: T,
  ): JoinedBranches<T, P>;
  /** `parallel ("first")`: the first branch to succeed wins; the others are cancelled. */
  first<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly onFail?: P },
    branches: T,
  ): Promise<RacedBranches<T, P>>;
  /** `parallel ("any", count: n)`: waits for `count` successes (default 1), then cancels the rest. */
  any<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly count?: number; readonly onFail?: P },
    branches: T,
  ): Promise<RacedBranches<T, P>>;
  /**
   * `parallel:` as modules generated before `branches` / `first` / `any` call it: the join strategy
   * given as an option.
   */
  parallel(at: Site, options: ParallelOptions, branches: readonly Branch[]): Promise<ParallelResult>;
  /**
   * `parallel for` and `pmap`: runs `body` over the items with the run-wide concurrency limit and
   * returns the results in item order.
   */
  map(at: Site, items: readonly Value[], body: (item: Value, index: number) => Promise<Value>): Promise<Value[]>;
  /**
   * Calls the program imported as `name` (`use "./x.prose" as name`): `run` is that program's
   * generated entry. The called run shares this run's limit, journal and state folder (`imports/`).
   */
  call<O extends Value>(
    at: Site,
    name: string,
    run: (inputs: never, options?: RunOptions) => Promise<O>,
    inputs: { readonly [name: string]: Value },
  ): Promise<O>;
  /** Calls a `block`, enforcing the recursion depth limit and giving the call an execution id. */
  block<T extends Value>(at: Site, name: string, maxDepth: number | undefined, body: () => Promise<T>): Promise<T>;
  /** Text treated as a list (`for x in parts`, pipelines): parse first, ask the model if that fails. */
  list(at: Site, value: Value): Promise<readonly Value[]>;
  /**
   * `a.b` / `a[0]` on a value that may be text holding structure; a key that is not a number is read as
   * text. `fields`: every field the program reads from the same binding; a text the model must read is
   * asked for all of them at once.
   */
  field(at: Site, value: Value, key: Value, fields?: readonly string[]): Promise<Value>;
  /** Truthiness for `filter`, deterministic conditions and `not`: parse first, then ask. */
  truthy(at: Site, value: Value): Promise<boolean>;
  /** Announces a statement (the narration's position). */
  position(at: Site, statement: string): void;
  /** Announces a loop iteration. */
  iteration(at: Site, index: number): void;
  /** An unbound result (a `do`, a program call, a parallel branch ...) joins the trail; returned unchanged. */
  keep<T extends Value>(source: string, value: T): T;
  /** A loop's sequences: `next()` starts each iteration, `end()` returns to the enclosing sequence. */
  loop(): LoopSequence;
  /**
   * A sequential pipeline stage's sequences: `next()` starts each item, which sees the trail where
   * the stage began and never another item's results; `end()` returns to the enclosing sequence.
   */
  items(): LoopSequence;
  /**
   * The final result of a program that declares no `output`: its last top-level statement's value
   * (prose.md, "Return outputs to caller (or final result if no outputs declared)"). A `use` caller
   * receives it, and `run-end` reports it.
   */
  finalResult(value: Value): void;
  /** Records a binding (for traces and `bindings/` files); returns the value unchanged. */
  bind<T extends Value>(at: Site, name: string, value: T): T;
  /** The error a `throw` raises, carrying the `.prose` location. */
  fail(at: Site, message?: string): Error;
  /** Called first in every `catch:`: rethrows what a program does not catch (a run waiting for input). */
  catchable(error: unknown): void;
  /**
   * What `catch as err` binds: the caught error's message. A function, not inline narrowing, so the
   * generated code type-checks even where TypeScript sees it as unreachable (after a `throw`).
   */
  caught(error: unknown): Value;
}

// ---------------------------------------------------------------------------------------------
// Options of a run
// ---------------------------------------------------------------------------------------------

/** `.prose` model names to model ids (`{ sonnet: "claude-sonnet-4-5" }`). */
export type ModelTable = Readonly<Record<string, string>>;

/** A tool call that needs a person's approval (`bash: prompt`, `network: prompt`, `read: prompt` ...). */
export interface PermissionRequest {
  readonly tool: string;
  /** The command, URL or path (as the model wrote it). */
  readonly detail: string;
  readonly agent?: string;
}

/** How a run reaches its model and the machine. Everything is optional. */
export interface RunOptions {
  /** Overrides of the model table (`{ sonnet: "claude-sonnet-4-5" }`); see `models.ts`. */
  readonly models?: ModelTable;
  /** Defaults to the SDK's `ANTHROPIC_API_KEY`. Never written to files, events or error messages. */
  readonly apiKey?: string;
  /** Defaults to the SDK's `ANTHROPIC_BASE_URL`: any Anthropic-compatible server works. */
  readonly baseURL?: string;
  readonly fetch?: typeof fetch;
  /**
   * A ready client; `apiKey`, `baseURL`, `fetch` and `maxRetries` are then ignored. Its requests
   * cannot be gated, so only `concurrency` limits them (no pace): give `fetch` instead to keep it.
   */
  readonly client?: Anthropic;
  /** The working directory tools resolve paths against (default `process.cwd()`). */
  readonly cwd?: string;
  /** Home directory for `persist: user` memory (default `os.homedir()`). */
  readonly homeDir?: string;
  /** Run id `YYYYMMDD-HHMMSS-xxxxxx` (default: generated). */
  readonly runId?: string;
  /**
   * Makes the run durable: its state folder (state/filesystem.md), with the journal every finished
   * step is recorded in before the next starts. Without it the run keeps its steps in memory, and
   * `persist: true` memory goes to `<cwd>/.prose/runs/<runId>/agents/`.
   */
  readonly runDir?: string;
  /**
   * Continue the run in `runDir`: recorded steps are replayed without calling the model, and the run
   * goes on from the first unfinished one. Refused when the program changed since the run started.
   */
  readonly resume?: boolean;
  /**
   * Hard cap on model calls in flight across the whole run (default 64). Below it the runtime follows
   * the API's pace, shared by every run of the process that reaches the same base URL with the same
   * key: 64 at first, halved on 429 / 529, one more with each success (runtime/pace.ts).
   */
  readonly concurrency?: number;
  /** Asked for an `input` that the caller did not supply. */
  readonly onInput?: (definition: InputDefinition) => Value | Promise<Value>;
  readonly onEvent?: (event: RunEvent) => void;
  /** Asked before a tool call whose permission is `prompt`; without it such calls are refused. */
  readonly onPermission?: (request: PermissionRequest) => boolean | Promise<boolean>;
  /** Extra tools offered to every session. */
  readonly tools?: readonly ToolDefinition[];
  /**
   * Environment variables every tool process gets, on top of PATH, HOME, LANG and the like (tools
   * get nothing else of this process's environment but what a session's `permissions: env:` names).
   * Their values are treated as secrets: removed from everything the run writes.
   */
  readonly toolEnv?: Readonly<Record<string, string>>;
  /**
   * How `fetch_url` resolves host names (default: the system's resolver). The addresses it returns are
   * the ones checked and connected to.
   */
  readonly resolveHost?: ResolveHost;
  /** Cancels the whole run. */
  readonly signal?: AbortSignal;
  /** `max_tokens` of a session's model calls (default 8192). */
  readonly maxTokens?: number;
  /** Model turns of one session's tool-use loop before it fails (default 50). */
  readonly maxTurns?: number;
  /** The SDK's own transport retries per model call (default 2). */
  readonly maxRetries?: number;
  /** Timeout of one HTTP attempt (default 10 minutes). */
  readonly requestTimeoutMs?: number;
  /** Limit for one step, all its retries and `retry-after` waits included (default 30 minutes). */
  readonly stepTimeoutMs?: number;
  /** Limit for the whole run (default none). */
  readonly deadlineMs?: number;
  /** Base delay of `backoff:` between `retry:` attempts (default 1000 ms). */
  readonly retryDelayMs?: number;
  /** Where step results are recorded and replayed from (default: in memory, this run only). */
  readonly journal?: Journal;
  /**
   * Where the run's steps and branches are made durable, when a journal is not enough: the DBOS
   * backend (`prosec worker`) passes its own. Takes precedence over `journal` and `runDir`'s journal.
   */
  readonly durability?: Durability;
  /** Characters of context a session's prompt may carry before values are shortened (default 200,000). */
  readonly contextBudget?: number;
  /**
   * Prompt caching (default true): `cache_control` breakpoints where a request's stable prefix ends
   * (tools and system prompt, memory, context, the conversation so far). Turn it off for a server that
   * refuses the field.
   */
  readonly promptCaching?: boolean;
  /**
   * Prices in dollars per million tokens by model id or family (`{ "my-model": { input: 0.5, output: 2 } }`),
   * on top of the list prices and `PROSEC_PRICES`: for cost estimates and budgets.
   */
  readonly prices?: PriceTable;
  /**
   * US dollars the whole run may spend on model calls (a resumed run counts what it spent before). Before
   * the first call, a program whose bound (`ProgramInfo.cost`, with the inputs) is over it is refused;
   * during the run, a request that could cross it is not sent and the run stops, resumable. A model
   * without a price is refused. Throws `BudgetExceeded` either way.
   */
  readonly budget?: number;
  /** Model requests the whole run may make (tool turns included, replayed steps not); enforced like `budget`. */
  readonly maxCalls?: number;
  /** Start even when the program's bound is over `budget` or `maxCalls` (the meter still stops the run). */
  readonly startOverBound?: boolean;
  /** How much of the trail (earlier unbound results) a request carries, in estimated tokens (4 characters each). Default 8,000. */
  readonly trailTokens?: number;
}

// ---------------------------------------------------------------------------------------------
// Durability: journals and the seam between the runtime and its store (durability.ts)
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

/** JSON Schema of a tool's input, as the Messages API takes it. */
export interface ToolInputSchema {
  readonly type: "object";
  readonly properties?: Readonly<Record<string, unknown>>;
  readonly required?: readonly string[];
}

export interface ToolContext {
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** The session's `permissions:`, enforced: each check throws when the access is not granted. */
  readonly permissions: ToolPermissions;
}

/** Resolves a host name to its addresses (IPv4 or IPv6 text). */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

/** What a permitted command runs: a command line under `/bin/sh -c`, or argv without a shell. */
export type CommandPlan = { readonly shell: string } | { readonly argv: readonly string[] };

/**
 * What a tool asks before it touches the machine (`tools/permissions.ts` answers). Paths are
 * resolved against the working directory; `confirm...` and `checkCommand` also ask
 * `RunOptions.onPermission` when the permission is `prompt`.
 */
export interface ToolPermissions {
  readablePath(path: string): string;
  writablePath(path: string): string;
  confirmRead(path: string, tool: string): Promise<string>;
  confirmWrite(path: string, tool: string): Promise<string>;
  checkCommand(command: string): Promise<CommandPlan>;
  /** Throws when the URL may not be fetched; returns it parsed. */
  checkUrl(url: string): Promise<URL>;
  /** Throws when one of the addresses the URL's host has may not be reached. */
  checkAddresses(url: URL, addresses: readonly string[]): void;
  readonly resolveHost: ResolveHost | undefined;
  /** The environment of this agent's tool processes. */
  environment(): Record<string, string>;
}

/**
 * A tool a session's agent can call. `run` returns the text the model sees; throwing reports the
 * error to the model (as an `is_error` result), which can then try something else.
 */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  run(input: Readonly<Record<string, unknown>>, context: ToolContext): Promise<string> | string;
}

// ---------------------------------------------------------------------------------------------
// Cost: prices (prices.ts) and a program's static bound (bound.ts)

/** A price in US dollars per million tokens. */
export interface ModelPrice {
  /** Dollars per million input tokens. */
  readonly input: number;
  /** Dollars per million output tokens. */
  readonly output: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * A quantity of a static bound: a number, a symbol (a list's size, a numeric input), sums, products
 * and maxima of counts, or `"unbounded"` (a loop without `max`, a recursion without `max_depth`).
 */
export type Count =
  | number
  | "unbounded"
  | { readonly symbol: string }
  | { readonly sum: readonly Count[] }
  | { readonly product: readonly Count[] }
  | { readonly max: readonly Count[] };

export type CallKind = "session" | "judgment" | "choice" | "extraction" | "retry";

/** What a symbol stands for, and how a run gives it a value. */
export interface CostSymbol {
  /** As printed: `|items|` for a list's size, `n` for a number. */
  readonly name: string;
  /** `items`: the size of the list read at `sites` (`Runtime.list`); `count`: a repeat count or `max:` read at `sites`. */
  readonly kind: "items" | "count";
  /** The program input it is read from, when it is one: known before the run starts. */
  readonly input?: string;
  readonly sites: readonly Site[];
}

export interface UnboundedConstruct {
  readonly line: number;
  readonly column: number;
  readonly reason: string;
}

export interface ProgramCost {
  /** Worst-case model calls by kind; `retry` counts the extra attempts of `retry:`. Sessions count one call each (tool turns come on top). */
  readonly calls: { readonly [kind in CallKind]: Count };
  /** The longest chain of model calls that must run one after another: the floor of the run's latency. */
  readonly criticalPath: Count;
  /** Estimated tokens by model name as the program writes it (`sonnet`, a quoted model id). */
  readonly tokens: { readonly [model: string]: { readonly input: Count; readonly output: Count } };
  readonly symbols: readonly CostSymbol[];
  readonly unbounded: readonly UnboundedConstruct[];
  /** The assumptions behind `tokens`: a session's reply, and each value a prompt shows, in tokens. */
  readonly assumptions: { readonly replyTokens: number; readonly valueTokens: number };
}
