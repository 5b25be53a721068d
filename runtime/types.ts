/**
 * The contract between generated workflow modules and the runtime.
 *
 * Generated code imports only from `prosec/runtime` and only uses what this file declares (plus
 * `defineProgram` / `startRun` and the value helpers exported from `runtime/index.ts`). Anything
 * here is public API: additions are fine, changes break every committed workflow.
 */
import type { RunOptions } from "./options.js";

/** What a `.prose` value can be at run time. Session results are text. */
export type Value = string | number | boolean | null | readonly Value[] | { readonly [key: string]: Value };

/** Where a runtime call came from in the `.prose` source (1-based, as editors show). */
export interface Site {
  readonly line: number;
  readonly column: number;
}

export type PermissionMode = "allow" | "deny" | "prompt";

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

/** The accesses `Permissions.ask` can name. */
export type PermissionAsked = "read" | "write" | "execute";

export type Persist = boolean | "project" | "user" | { readonly path: string };

export type Backoff = "none" | "linear" | "exponential";

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
}

export type JoinStrategy = "all" | "first" | "any";
export type FailurePolicy = "fail-fast" | "continue" | "ignore";

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

export interface RunEventBase {
  readonly at?: Site;
  /** The source file `at` is in, on the events of a program called from another (`Runtime.call`). */
  readonly source?: string;
  /** Milliseconds since the run started. */
  readonly time: number;
}

/** Model usage of one call, summed per run in the `run-end` event. */
export interface Usage {
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** The narration: one event per step, for the CLI to display and for users to log. */
export type RunEvent =
  | (RunEventBase & { readonly type: "run-start"; readonly runId: string; readonly program: string })
  | (RunEventBase & { readonly type: "position"; readonly statement: string })
  | (RunEventBase & { readonly type: "session-start"; readonly label: string; readonly agent?: string; readonly trail?: readonly string[] })
  | (RunEventBase & { readonly type: "session-end"; readonly label: string; readonly usage: readonly Usage[]; readonly replayed: boolean })
  | (RunEventBase & { readonly type: "binding"; readonly name: string; readonly preview: string })
  | (RunEventBase & { readonly type: "judgment"; readonly asks?: JudgmentAsker | "choice"; readonly question: string; readonly answer: string; readonly reason: string; readonly trail?: readonly string[] })
  | (RunEventBase & { readonly type: "extraction"; readonly shape: "list" | "field" | "boolean"; readonly method: "parse" | "model" })
  | (RunEventBase & { readonly type: "parallel-start"; readonly branches: number })
  | (RunEventBase & { readonly type: "parallel-end"; readonly succeeded: number; readonly failed: number })
  | (RunEventBase & { readonly type: "loop-iteration"; readonly iteration: number })
  | (RunEventBase & { readonly type: "tool"; readonly tool: string; readonly allowed: boolean; readonly detail: string })
  | (RunEventBase & { readonly type: "error"; readonly message: string })
  /** The run stops waiting for these inputs (see `WaitingForInput`); `run-end` follows. */
  | (RunEventBase & { readonly type: "waiting"; readonly questions: readonly { readonly name: string; readonly prompt: string; readonly line: number }[] })
  | (RunEventBase & { readonly type: "run-end"; readonly ok: boolean; readonly usage: readonly Usage[] });

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
  choose(at: Site, criteria: string, options: readonly string[], scope: { readonly [name: string]: Value }): Promise<number>;
  /** An `input` value: supplied inputs first, then `RunOptions.onInput`; else an error naming it. */
  input(at: Site, definition: InputDefinition): Promise<Value>;
  /** `parallel:` with its join strategy and failure policy. */
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
  call<I, O extends Value>(at: Site, name: string, run: (inputs: I, options?: RunOptions) => Promise<O>, inputs: I): Promise<O>;
  /** Calls a `block`, enforcing the recursion depth limit and giving the call an execution id. */
  block<T extends Value>(at: Site, name: string, maxDepth: number | undefined, body: () => Promise<T>): Promise<T>;
  /** Text treated as a list (`for x in parts`, pipelines): parse first, ask the model if that fails. */
  list(at: Site, value: Value): Promise<readonly Value[]>;
  /** `a.b` / `a[0]` on a value that may be text holding structure. */
  field(at: Site, value: Value, key: string | number): Promise<Value>;
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
  /** Records a binding (for traces and `bindings/` files); returns the value unchanged. */
  bind<T extends Value>(at: Site, name: string, value: T): T;
  /** The error a `throw` raises, carrying the `.prose` location. */
  fail(at: Site, message?: string): Error;
  /** Called first in every `catch:`: rethrows what a program does not catch (a run waiting for input). */
  catchable(error: unknown): void;
}
