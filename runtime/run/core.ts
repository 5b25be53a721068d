/**
 * What every part of a run shares: the model client and the run-wide limiter, events, durability,
 * time limits, and `step()`, the one path by which a model-facing step runs (replay or execution
 * under the time limit, error wrapping, the record of its outcome).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsNonStreaming, Tool } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { SourceAnchors } from "./anchors.js";
import { withBreakpoints } from "../model/caching.js";
import { connectionFor } from "../model/client.js";
import { describeError, isAbortError, ProseError, WaitingForInput } from "../errors.js";
import { preview, UsageTotals, type PendingEvent } from "./events.js";
import { JournalDurability, ScopedDurability, StepMismatch } from "../durable/durability.js";
import { MemoryJournal } from "../durable/journal.js";
import { Limiter } from "../model/limiter.js";
import { BudgetExceeded, Meter, type Refusal } from "./meter.js";
import { PriceError, priceTable, type PriceTable } from "../model/prices.js";
import { resolveModel } from "../model/models.js";
import { outputLimit } from "../model/output-limits.js";
import { systemPrompt } from "../model/prompt.js";
import { sharedController, stepSignal } from "./signals.js";
import { currentContext, outsideContext, StepContext } from "./step-context.js";
import { AnchoredStep } from "./step-identity.js";
import { fingerprint, structuralSegment, valueDigest } from "./step-keys.js";
import { ProgramOutline } from "./outline.js";
import type { TrailEntry } from "../steps/trail.js";
import { builtinTools } from "../tools/builtin.js";
import { PermissionGuard } from "../tools/permissions.js";
import { Secrets } from "../tools/secrets.js";
import { toolParam } from "../tools/tool.js";
import type { TraceWriter } from "../durable/trace-writer.js";
import { OFF, type Telemetry } from "../telemetry/run-telemetry.js";
import type {
  AgentDefinition,
  Durability,
  Permissions,
  ProgramInfo,
  RecordedStep,
  RunEvent,
  RunOptions,
  Site,
  StepAsk,
  StepKind,
  ToolDefinition,
  Usage,
  Value,
} from "../types.js";

export interface Toolbox {
  readonly permissions: PermissionGuard;
  readonly tools: readonly ToolDefinition[];
  readonly offered: ReadonlyMap<string, ToolDefinition>;
  /** The tools as the Messages API takes them. */
  readonly params: Tool[];
}

/** The default hard cap of a run; the API's pace (pace.ts) usually decides first. */
const DEFAULT_CONCURRENCY = 64;
const DEFAULT_STEP_TIMEOUT_MS = 30 * 60_000;

export interface StepOutcome<T extends Value> {
  readonly value: T;
  readonly reason?: string;
  readonly usage: readonly Usage[];
  /** The model answers it took, when more than one (re-asks, continuations: docs/model-answers.md). */
  readonly attempts?: number;
  /** The unexpected answers on the way, described. */
  readonly problems?: readonly string[];
  /** A session's answer kept although still cut off (`onTruncation: "keep"`). */
  readonly truncated?: true;
}

export interface StepResult<T extends Value> extends StepOutcome<T> {
  readonly replayed: boolean;
}

/** The price table of a run; a mistake in `PROSEC_PRICES` is the run's error. */
function pricesOf(options: RunOptions, program: ProgramInfo): PriceTable {
  try {
    return priceTable(options.prices);
  } catch (error) {
    if (error instanceof PriceError) throw new ProseError(`PROSEC_PRICES: ${error.message}`, { file: program.source });
    throw error;
  }
}

/** A reply's usage; the cache fields only when the server reported cache traffic. */
function usageOf(model: string, reported: Partial<Message["usage"]> | undefined): Usage {
  const written = reported?.cache_creation_input_tokens ?? 0;
  const read = reported?.cache_read_input_tokens ?? 0;
  return {
    model,
    inputTokens: reported?.input_tokens ?? 0,
    outputTokens: reported?.output_tokens ?? 0,
    ...(written === 0 ? {} : { cacheWriteTokens: written }),
    ...(read === 0 ? {} : { cacheReadTokens: read }),
  };
}

export class RunCore {
  readonly client: Anthropic;
  /** The run's hard cap on model calls in flight (`concurrency`). */
  readonly limiter: Limiter;
  /** Replaced by the file journal's when a durable run opens its folder. */
  durability: Durability;
  /** A durable run's trace (docs/trace.md): set when the run opens its folder, shared with called programs. */
  trace: TraceWriter | undefined;
  /** The run's OpenTelemetry spans (telemetry/): started with the run, shared with called programs. */
  telemetry: Telemetry;
  readonly totals = new UsageTotals();
  /** Spending and its limits, shared with the programs this run calls. */
  readonly meter: Meter;
  readonly root: StepContext;
  /** Content anchors of this program's constructs. */
  readonly anchors: SourceAnchors;
  readonly startedAt: number;
  /** The runtime's own listeners (the run folder's trace); `options.onEvent` is the caller's. */
  private readonly observers: Array<(event: RunEvent) => void> = [];
  private readonly nested: boolean;
  /** The top-level run's core, for a called program's. */
  private readonly caller: RunCore | undefined;
  private readonly rootController = sharedController();
  /** What is removed from everything the run writes or shows (shared with called programs). */
  readonly secrets: Secrets;
  private readonly modelIds = new Map<string, string>();
  // Sessions of one agent share their permission guard, tool list and system prompt: rebuilding them
  // for every session was a measurable part of the runtime's own cost.
  private readonly toolboxes = new Map<Permissions | undefined, Map<string | undefined, Toolbox>>();
  private readonly notices = new Set<string>();
  private readonly systemPrompts = new Map<AgentDefinition | undefined, string>();
  /** Agents whose sessions called tools: their next sessions will likely take several turns (caching.ts). */
  private readonly toolUsers = new Set<string | undefined>();
  /** The program's outline, for structural keys (built on first use; aligned with the recorded program on a changed resume). */
  private outline: ProgramOutline | undefined;
  /**
   * Whether steps are fingerprinted (a run folder keeps fingerprints): then every step's result is
   * remembered with its fingerprint, so the steps that read it depend on it (`step-keys.ts`).
   */
  fingerprinting: boolean;
  /**
   * The fingerprint of the step that produced a value, by the value's digest; null when several
   * steps produced the same text (then which one did is a matter of timing, and the text stands alone).
   */
  private readonly producers: Map<string, string | null>;

  /**
   * `caller` is set for a program called from another program's run: the two share the client, the
   * run-wide limit and the clock, and the called program's steps are recorded under `keyPrefix`
   * (`anchorPrefix` in content anchors).
   */
  constructor(
    readonly program: ProgramInfo,
    readonly options: RunOptions,
    caller?: {
      readonly core: RunCore;
      readonly keyPrefix: string;
      readonly anchorPrefix: string;
      readonly structuralPrefix: string;
    },
  ) {
    this.meter =
      caller?.core.meter ??
      new Meter(
        { budget: options.budget, maxCalls: options.maxCalls },
        pricesOf(options, program),
        options.promptCaching !== false,
      );
    if (caller !== undefined) {
      this.client = caller.core.client;
      this.limiter = caller.core.limiter;
    } else {
      const connection = connectionFor(options);
      this.client = connection.client;
      this.limiter = new Limiter(options.concurrency ?? DEFAULT_CONCURRENCY);
      connection.pace?.allow(this.limiter.limit);
    }
    this.durability =
      caller !== undefined
        ? new ScopedDurability(caller.core.durability, caller.keyPrefix)
        : (options.durability ?? new JournalDurability(options.journal ?? new MemoryJournal()));
    this.trace = caller?.core.trace;
    this.telemetry = caller?.core.telemetry ?? OFF;
    this.startedAt = caller?.core.startedAt ?? Date.now();
    this.nested = caller !== undefined;
    this.caller = caller?.core.caller ?? caller?.core;
    this.root = new StepContext(
      "",
      this.rootController.signal,
      undefined,
      caller?.anchorPrefix ?? "",
      undefined,
      caller?.structuralPrefix ?? "",
      (segment) => structuralSegment(this.programOutline(), segment),
    );
    this.fingerprinting = caller?.core.fingerprinting ?? false;
    this.producers = caller?.core.producers ?? new Map();
    this.anchors = new SourceAnchors(program.text);
    this.secrets = caller?.core.secrets ?? Secrets.of(options.apiKey, process.env, options.toolEnv);
  }

  private programOutline(): ProgramOutline | undefined {
    if (this.outline === undefined && this.program.text !== undefined)
      this.outline = ProgramOutline.of(this.program.text);
    return this.outline;
  }

  /**
   * Resuming a run recorded with `previous`, an earlier text of this program: statement sites are
   * taken from it where statements were kept, so unnamed steps keep their structural keys.
   */
  alignWith(previous: string): void {
    if (this.program.text !== undefined) this.outline = ProgramOutline.aligned(this.program.text, previous);
  }

  get context(): StepContext {
    return currentContext(this.root);
  }

  /** Aborts everything still running; `reason` is what the pending steps reject with. */
  abort(reason: unknown): void {
    this.rootController.abort(reason);
  }

  /** Aborts the whole run: this one, or the run that called this program. */
  private stopRun(reason: unknown): void {
    (this.caller ?? this).abort(reason);
  }

  /** Whether anyone receives events (hot paths skip building them otherwise). */
  get listening(): boolean {
    return this.options.onEvent !== undefined || this.observers.length > 0;
  }

  observe(observer: (event: RunEvent) => void): void {
    this.observers.push(observer);
  }

  emit(event: PendingEvent): void {
    this.telemetry.event(event);
    if (!this.listening) return;
    const stamped = {
      ...event,
      ...(this.nested ? { source: this.program.source } : {}),
      time: Date.now() - this.startedAt,
    } as RunEvent;
    const redacted = this.secrets.redactDeep(stamped);
    for (const observer of this.observers) observer(redacted);
    this.options.onEvent?.(redacted);
  }

  /** Emits a `notice` event the first time this run meets `message`. */
  private noticeOnce(message: string | undefined): void {
    if (message === undefined || this.notices.has(message)) return;
    this.notices.add(message);
    this.emit({ type: "notice", message });
  }

  /** The guard and tools of an agent with these permissions (cached by the permissions object). */
  toolbox(permissions: Permissions | undefined, agent: string | undefined): Toolbox {
    let byAgent = this.toolboxes.get(permissions);
    if (byAgent === undefined) this.toolboxes.set(permissions, (byAgent = new Map()));
    let toolbox = byAgent.get(agent);
    if (toolbox === undefined) {
      const { toolEnv, resolveHost, fetchTimeoutMs, sandbox } = this.options;
      const guard = new PermissionGuard(
        this.options.cwd ?? process.cwd(),
        permissions,
        this.options.onPermission,
        agent,
        {
          ...(toolEnv && { toolEnv }),
          ...(resolveHost && { resolveHost }),
          ...(fetchTimeoutMs && { fetchTimeoutMs }),
          ...(sandbox && { sandbox }),
        },
      );
      this.noticeOnce(guard.sandboxNotice());
      for (const name of permissions?.env ?? []) this.secrets.add(process.env[name]);
      const tools = [...builtinTools(guard), ...(this.options.tools ?? [])];
      toolbox = {
        permissions: guard,
        tools,
        offered: new Map(tools.map((tool) => [tool.name, tool])),
        params: tools.map(toolParam),
      };
      byAgent.set(agent, toolbox);
    }
    return toolbox;
  }

  /** The system prompt of a session of `agent` (or of no agent) that adds no skills or notes of its own. */
  systemPromptOf(agent: AgentDefinition | undefined): string {
    let prompt = this.systemPrompts.get(agent);
    if (prompt === undefined) {
      prompt = systemPrompt(this.program.name, agent ?? {}, agent?.prompt);
      this.systemPrompts.set(agent, prompt);
    }
    return prompt;
  }

  /** Whether sessions of this agent (undefined: of no agent) have used tools in this run. */
  usedTools(agent: string | undefined): boolean {
    return this.toolUsers.has(agent);
  }

  recordToolUse(agent: string | undefined): void {
    this.toolUsers.add(agent);
  }

  /** The model id for a `.prose` model name (resolved once per name and run: reading the environment is slow). */
  model(name: string | undefined): string {
    const key = name ?? "";
    let id = this.modelIds.get(key);
    if (id === undefined) {
      id = resolveModel(name, this.options.models);
      this.modelIds.set(key, id);
    }
    return id;
  }

  /** The model's output limit (output-limits.ts): a session's default `max_tokens`. */
  outputLimit(model: string, signal: AbortSignal): Promise<number> {
    return outputLimit(this.client, model, signal);
  }

  /**
   * One Messages API call, inside the run's cap, cancelled with `signal`; each of its HTTP attempts
   * also waits for the API's pace (pace.ts, in the client's `fetch`). A call still waiting for either
   * when `signal` aborts is dropped unsent. With prompt caching (the default), `cache_control`
   * breakpoints where the request's stable prefixes end (caching.ts); the meter admits it first (meter.ts).
   */
  async callModel(
    request: MessageCreateParamsNonStreaming,
    signal: AbortSignal,
  ): Promise<{ message: Message; usage: Usage }> {
    const params = this.options.promptCaching === false ? request : withBreakpoints(request);
    return this.limiter.run(signal, async () => {
      const reservation = this.meter.admit(params);
      if ("remedy" in reservation) return this.stopForBudget(reservation);
      let usage: Usage | undefined;
      const send = (): Promise<{ message: Message; usage: Usage }> => this.telemetry.turn(params, request);
      const request = async (): Promise<{ message: Message; usage: Usage }> => {
        const message = await outsideContext(() => this.client.messages.create(params, { signal }));
        if (!message || !Array.isArray(message.content))
          throw new Error("The model server answered with something that is not a message.");
        usage = usageOf(params.model, message.usage);
        return { message, usage };
      };
      try {
        return await (this.trace === undefined ? send() : this.trace.request(params, send));
      } finally {
        reservation.settle(usage);
      }
    });
  }

  /**
   * A request the budget does not allow: the requests in flight finish (they are paid for), then the
   * whole run stops as an interrupt does, resumable with a larger budget.
   */
  private async stopForBudget({ reason, remedy }: Refusal): Promise<never> {
    const error = new BudgetExceeded(this.redact(reason), { file: this.program.source }, remedy);
    await this.meter.whenIdle();
    this.stopRun(error);
    throw error;
  }

  /**
   * Runs one model-facing step: replays it when it was recorded, else executes it under the step
   * time limit and records the outcome before returning. `ask` is what the step asks (see
   * step-identity.ts): the durability gets it with the step's content anchor.
   */
  async step<T extends Value>(
    kind: StepKind,
    at: Site,
    label: string,
    ask: StepAsk,
    execute: (signal: AbortSignal, key: string) => Promise<StepOutcome<T>>,
  ): Promise<StepResult<T>> {
    const context = this.context;
    const key = context.nextKey(kind, at);
    const anchor = `${context.anchorPath}/${context.nextAnchor(this.anchors.of(kind, at, ask.binding))}`;
    const structuralKey = context.structuralKey(key.slice(context.path.length + 1), kind, ask.binding);
    // What the step read is taken now: the trail grows as the run goes on.
    const trail = this.fingerprinting && kind !== "input" && kind !== "extract" ? context.trail.entries() : [];
    const identity = new AnchoredStep(kind, at, anchor, this.program, ask, structuralKey, () =>
      this.fingerprintOf(kind, ask, trail),
    );
    const limitMs = this.options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
    let limit: ReturnType<typeof stepSignal> | undefined;
    try {
      const { step, replayed } = await this.durability.step(
        key,
        kind,
        async () => {
          const run = async (): Promise<RecordedStep> => {
            limit = stepSignal(context.signal, limitMs);
            const signal = limit.signal;
            const outcome = await this.telemetry.step(kind, at, this.traceKey(key), ask, () => execute(signal, key));
            this.totals.add(outcome.usage);
            // The one place a model's answer enters the run: what is recorded, bound and output is redacted.
            const value = this.secrets.redactDeep(outcome.value);
            return {
              kind,
              value,
              usage: outcome.usage,
              ...(outcome.reason === undefined ? {} : { reason: this.redact(outcome.reason) }),
              ...(outcome.attempts === undefined ? {} : { attempts: outcome.attempts }),
              ...(outcome.problems === undefined || outcome.problems.length === 0
                ? {}
                : { problems: outcome.problems.map((problem) => this.redact(problem)) }),
              ...(outcome.truncated === undefined ? {} : { truncated: outcome.truncated }),
            } satisfies RecordedStep;
          };
          return this.trace === undefined
            ? run()
            : this.trace.step(this.traceKey(key), kind, at, label, run, (error) => error instanceof WaitingForInput);
        },
        identity,
      );
      if (this.fingerprinting) this.produced(step.value, identity.fingerprint);
      return {
        value: step.value as T,
        ...(step.reason === undefined ? {} : { reason: step.reason }),
        usage: step.usage,
        ...(step.truncated === undefined ? {} : { truncated: step.truncated }),
        replayed,
      };
    } catch (error) {
      if (error instanceof WaitingForInput) throw error;
      if (error instanceof StepMismatch) throw this.error(error.message, at);
      if (context.signal.aborted) throw context.signal.reason ?? error;
      if (limit?.signal.aborted && limit.signal.reason instanceof ProseError)
        throw this.error(limit.signal.reason.reason, at, label, error);
      if (error instanceof ProseError && error.file !== undefined) throw error;
      throw this.error(
        isAbortError(error) ? "The step was cancelled." : `${label} failed: ${describeError(error)}`,
        at,
        label,
        error,
      );
    } finally {
      limit?.release();
    }
  }

  /** A step's key as the journal has it: a called program's steps under their caller's prefix. */
  private traceKey(key: string): string {
    return this.durability instanceof ScopedDurability ? this.durability.fullKey(key) : key;
  }

  private produced(value: Value, fingerprint: string): void {
    const digest = valueDigest(value);
    const earlier = this.producers.get(digest);
    this.producers.set(digest, earlier === undefined || earlier === fingerprint ? fingerprint : null);
  }

  /** A step's fingerprint (`step-keys.ts`): what it asks, how, and the steps that produced what it read. */
  private fingerprintOf(kind: StepKind, ask: StepAsk, trail: readonly TrailEntry[]): string {
    const details = (ask.details() ?? {}) as { readonly model?: unknown; readonly context?: unknown };
    const model = typeof details.model === "string" || kind === "session" ? this.model(details.model as string) : "";
    const context = details.context;
    const contextValues =
      context === undefined || context === null || Array.isArray(context)
        ? []
        : Object.values(context as Record<string, Value>);
    // A session with `context:` (even `[]`) is not shown the trail.
    const seen = kind === "session" && context !== undefined ? [] : trail;
    const producedBy = (value: Value): string => {
      const digest = valueDigest(value);
      return this.producers.get(digest) ?? digest;
    };
    // A record context is read by its values' producers (below); what it names stays in how it asks.
    const how = contextValues.length === 0 ? details : { ...details, context: Object.keys(context as object) };
    return fingerprint({
      kind,
      asks: ask.text,
      how: [how, model, this.program.name, (this.options.tools ?? []).map((tool) => tool.name)],
      reads: [...contextValues.map(producedBy), ...seen.map((entry) => `${entry.source}:${producedBy(entry.value)}`)],
    });
  }

  /** A ProseError at `at` in this program, with secrets removed from its text. */
  error(reason: string, at?: Site, session?: string, cause?: unknown): ProseError {
    return new ProseError(this.redact(reason), {
      file: this.program.source,
      ...(at === undefined ? {} : { at }),
      ...(session === undefined ? {} : { session }),
      ...(cause === undefined ? {} : { cause }),
    });
  }

  redact(text: string): string {
    return this.secrets.redact(text);
  }

  preview(value: string): string {
    return preview(value);
  }
}
