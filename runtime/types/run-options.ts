/**
 * `RunOptions`: how an app runs a compiled program (models, connection, folders, limits, listeners,
 * durability, tools and prices). All optional.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Journal, StepStore } from "./durability.js";
import type { RunEvent } from "./events.js";
import type { InputDefinition, Value } from "./program.js";
import type { ResolveHost, SharedMcpServers, ToolDefinition } from "./tools.js";

/** `.prose` model names to model ids (`{ sonnet: "claude-sonnet-4-5" }`). */
export type ModelTable = Readonly<Record<string, string>>;

/**
 * Model fallback chains: a model (a `.prose` model name or a model id) to the models tried, in order,
 * when it is overloaded, rate-limited or not found (`{ sonnet: ["opus", "haiku"] }`).
 */
export type FallbackChains = Readonly<Record<string, readonly string[]>>;

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
  /**
   * Where a call goes when its model is overloaded (529) or rate-limited (429) after the SDK's retries,
   * or not found (404): `{ sonnet: ["opus", "haiku"] }`, names resolved as `models` resolves them. On
   * top of `PROSEC_FALLBACK` (`sonnet=opus,haiku;opus=sonnet`). Usage, cost, the journal and the trace
   * name the model that answered; the budget's check before the run prices a chain at its most
   * expensive model (docs/production.md, "Fallback").
   */
  readonly fallback?: FallbackChains;
  /**
   * Sessions stream their answers (default true): `onEvent` gets `delta` events with the text as it
   * arrives, and `abandoned` when a stream is cut and its text will not be the answer. The recorded
   * turns are the same either way. `false` sends every request whole (docs/production.md, "Streaming").
   */
  readonly stream?: boolean;
  /**
   * Whether `onEvent` gets the streamed text (`delta` and `abandoned` events; default true). `false`
   * for an observer that does not show text as it arrives: the requests still stream, and no text is
   * redacted and held back piece by piece for nobody (`prosec run` off a terminal, `--json` without
   * `--stream`).
   */
  readonly streamEvents?: boolean;
  /**
   * A W3C `traceparent` the run's root span continues, when a provider is registered: every process
   * that runs part of the run (a DBOS run moved between workers) passes the same one, so the run is one
   * trace. Unset, the root span's parent is the active span, if any (docs/production.md, "Tracing").
   */
  readonly traceParent?: string;
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
   * goes on from the first unfinished one. When the program changed since the run started, the steps
   * whose structural key and fingerprint are unchanged are reused and the rest run (docs/resume.md).
   */
  readonly resume?: boolean;
  /** With `resume`: refuse a program that changed since the run started, as earlier releases did. */
  readonly strict?: boolean;
  /**
   * With `resume`: steps that changed since they ran may run again although their tool calls with an
   * effect (commands, edited files) finished; without it such a resume stops with a `RunStateError`
   * listing them (`prosec run --rerun`).
   */
  readonly rerun?: boolean;
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
  /**
   * Asked about the calls an explicit `prompt` permission puts to a person, when there is no
   * `onPermission` (`prosec run` asks on a terminal); without either, a run with a run folder stops
   * waiting for approval (docs/tools.md). Never asked about the implicit default of `bash:`.
   */
  readonly onApproval?: (request: PermissionRequest) => boolean | Promise<boolean>;
  /**
   * The `.mcp.json` that declares the run's MCP servers (default: the nearest one at or above `cwd`;
   * `prosec run` passes the one nearest the program). Read only when an agent has `permissions: mcp:`.
   */
  readonly mcpConfig?: string;
  /**
   * MCP servers whose lifetime is the caller's, not the run's (`prosec worker` passes its own, so a
   * server starts once per worker): the run uses them and leaves them running. Default: the run
   * starts its own and stops them when it ends.
   */
  readonly mcpServers?: SharedMcpServers;
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
  /**
   * The OS sandbox of `run_command` (bubblewrap). `required`: commands run only inside it (without it
   * `run_command` is not offered); `auto`: inside it when the machine has it, else as the user; `off`:
   * never. Default `required`: an allow-list is not a boundary without the OS sandbox.
   */
  readonly sandbox?: "required" | "auto" | "off";
  /** Deadline of one `fetch_url` call, redirects and the body included (default 30,000 ms). */
  readonly fetchTimeoutMs?: number;
  /** Cancels the whole run. */
  readonly signal?: AbortSignal;
  /**
   * Awaited at each boundary inside a session, before a model turn and before a tool call: when it
   * throws, the run stops there. A DBOS worker checks that its run was not cancelled or taken over.
   */
  readonly atBoundary?: (boundary: "turn" | "tool") => Promise<void>;
  /**
   * `max_tokens` of a session's model calls. Default: the model's own output limit as the Models API
   * reports it (`client.models.retrieve(id).max_tokens`), else 8,192 for a server that does not say.
   */
  readonly maxTokens?: number;
  /**
   * How many more times a judgment, choice or extraction is asked when its answer cannot be read
   * (text instead of the answer tool, the wrong shape, cut off, a refusal, another tool): each time
   * with a corrective turn. Default 2; 0 fails at the first unreadable answer.
   */
  readonly reasks?: number;
  /** How many times a session's answer cut off at `max_tokens` is continued (default 3). */
  readonly continuations?: number;
  /**
   * A session's answer still cut off after its continuations: `"fail"` the step (default) or `"keep"`
   * the text joined so far (then marked in the events and the journal). A typed session (`returns:`)
   * fails either way: cut text is no value of its type.
   */
  readonly onTruncation?: "fail" | "keep";
  /** Model turns of one session's tool-use loop before it fails (default 50). */
  readonly maxTurns?: number;
  /** Tool calls of one model turn that run; each call beyond gets an error result (default 64). */
  readonly maxToolCallsPerTurn?: number;
  /** Characters of one tool result the model gets; the rest is cut with a marker (default 131,072). */
  readonly maxToolResultChars?: number;
  /**
   * Characters of tool results a session's conversation keeps; past it the oldest are elided with a
   * marker, down to half (default 2,097,152).
   */
  readonly maxConversationToolChars?: number;
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
  readonly durability?: StepStore;
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

/** A price in US dollars per million tokens. */
export interface ModelPrice {
  /** Dollars per million input tokens. */
  readonly input: number;
  /** Dollars per million output tokens. */
  readonly output: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;
