/**
 * What a compiled program declares, in the types its generated module writes: values, call sites,
 * agents and sessions with their settings, inputs, and the program's metadata with its static cost
 * bound (`ProgramInfo`). Part of the contract with generated code (see `contract.ts`).
 */
import type { Backoff, EmptyAnswer, PermissionAsked, PermissionMode, PersistScope } from "../vocabulary.js";

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
  /** `server/tool` globs over the MCP servers of `.mcp.json`; none when absent (docs/tools.md). */
  readonly mcp?: readonly string[];
  /**
   * `mcp:`'s `prompt:` entries (`mcp: prompt` is `["*"]`): globs whose tools are offered as `mcp:`'s
   * are, each call put to a person first (`onPermission`, the terminal, or a durable wait). A tool
   * both lists match asks.
   */
  readonly mcpPrompt?: readonly string[];
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
  /** `empty: allow`: an empty answer is the session's result, not a failure (docs/model-answers.md). */
  readonly empty?: EmptyAnswer;
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
  /**
   * `returns:` (its own or its agent's), as the JSON Schema of the result's type: the session ends
   * with an `answer` tool call whose input is `{ answer: <that type> }`, checked, and asked again
   * when wrong (DIALECT.md, "Typed results"). Its result is then that value, not text.
   */
  readonly returns?: ResultSchema;
}

/** The JSON Schema of a `returns:` type, as generated code writes it (plain data). */
export type ResultSchema = { readonly [key: string]: unknown };

/** A session request with a `returns:` type: `Runtime.session<T>` resolves to a value of it. */
export interface TypedSessionRequest extends SessionRequest {
  readonly returns: ResultSchema;
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
  /**
   * The programs this one calls (`use "..." as alias`), by alias: a resumed run checks them for edits
   * as it checks the program itself. Absent in modules generated before it, and for a program that calls none.
   */
  readonly uses?: { readonly [alias: string]: ProgramInfo };
  /** The `.prose` source itself: a durable run keeps a copy and quotes it in its state files. */
  readonly text?: string;
  /** The static bound on the program's model calls and tokens (see `ProgramCost`), for budgets and apps. */
  readonly cost?: ProgramCost;
  /**
   * Skills imported from a local folder (`import "file-reader" from "./local-skills/file-reader"`):
   * the folder of each, relative to the working directory (the program's folder joined with the path).
   */
  readonly skillFolders?: { readonly [name: string]: string };
}

// Cost: a program's static bound (cost/bound.ts)

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
  /**
   * Worst-case model calls by kind; `retry` counts the extra attempts of `retry:` and the re-asks of
   * judgments, choices and extractions (`assumptions.reasks` each). Sessions count one call each (tool
   * turns and continuations come on top).
   */
  readonly calls: { readonly [kind in CallKind]: Count };
  /** The longest chain of model calls that must run one after another: the floor of the run's latency. */
  readonly criticalPath: Count;
  /** Estimated tokens by model name as the program writes it (`sonnet`, a quoted model id). */
  readonly tokens: { readonly [model: string]: { readonly input: Count; readonly output: Count } };
  readonly symbols: readonly CostSymbol[];
  readonly unbounded: readonly UnboundedConstruct[];
  /**
   * The assumptions behind `tokens`: a session's reply, and each value a prompt shows, in tokens; and
   * the re-asks counted for each judgment, choice and extraction (absent in bounds built before them).
   */
  readonly assumptions: { readonly replyTokens: number; readonly valueTokens: number; readonly reasks?: number };
}
