/**
 * What every part of a run shares: the model (model-access.ts), what an agent's sessions share
 * (agent-kits.ts), events, durability, time limits, and `step()`, the one path by which a
 * model-facing step runs (its address (address/), replay or execution under the time limit, error
 * wrapping, the record of its outcome).
 */
import { AgentKits, type Toolbox } from "./agent-kits.js";
import { RunMcp } from "./run-mcp.js";
import { RunSkills, runPlaces, type RunPlaces } from "./run-skills.js";
import { durableAsker } from "../tools/approvals.js";
import { describeError, isAbortError, ProseError, RunStateError, WaitingForInput } from "../errors.js";
import { UsageTotals } from "./events.js";
import { JournalStepStore, ScopedStepStore, StepMismatch } from "../durable/durability.js";
import { MemoryJournal } from "../durable/journal.js";
import type { Limiter } from "../model/limiter.js";
import { BudgetExceeded, Meter, type Refusal } from "../cost/meter.js";
import { ModelAccess } from "./model-access.js";
import type { CallSite } from "../model/streamed-text.js";
import { PriceError, priceTable, type PriceTable } from "../model/prices.js";
import { modelCredentials } from "../model/client.js";
import { sharedController, stepSignal } from "../signals.js";
import { StepContext } from "./step-context.js";
import { StepAddresses } from "../address/step-address.js";
import { failedStepError, failureOf, replayedError } from "./failed-steps.js";
import { Secrets } from "../tools/secrets.js";
import type { TraceWriter } from "../durable/trace-writer.js";
import { OFF, type Telemetry } from "../telemetry/run-telemetry.js";
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages/messages.js";
import type {
  AgentDefinition,
  Permissions,
  ProgramInfo,
  RecordedStep,
  RememberedSession,
  RunEvent,
  RunOptions,
  Site,
  StepAsk,
  StepKind,
  StepStore,
  Usage,
  Value,
} from "../types.js";
import type { PendingEvent } from "../types/internal.js";

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
  /** A persistent agent's session: what it adds to the agent's memory. */
  readonly remembered?: RememberedSession;
}

export interface StepResult<T extends Value> extends StepOutcome<T> {
  readonly replayed: boolean;
}

/** The price table of a run; a mistake in `PROSEC_PRICES` is the run's error. */
/** The run's secrets: the model's credentials however they were given, and the environment's. */
function runSecrets(options: RunOptions): Secrets {
  const [key, ...others] = modelCredentials(options);
  const secrets = Secrets.of(key, process.env, options.toolEnv);
  for (const other of others) secrets.add(other);
  return secrets;
}

function pricesOf(options: RunOptions, program: ProgramInfo): PriceTable {
  try {
    return priceTable(options.prices);
  } catch (error) {
    if (error instanceof PriceError) throw new ProseError(`PROSEC_PRICES: ${error.message}`, { file: program.source });
    throw error;
  }
}

export class RunCore {
  /** The client, the run-wide cap on calls in flight and model ids, shared with called programs. */
  readonly models: ModelAccess;
  /** The run's hard cap on model calls in flight (`concurrency`). */
  readonly limiter: Limiter;
  /** Replaced by the file journal's when a durable run opens its folder. */
  durability: StepStore;
  /** A durable run's trace (docs/trace.md): set when the run opens its folder, shared with called programs. */
  trace: TraceWriter | undefined;
  /** The run's OpenTelemetry spans (telemetry/): started with the run, shared with called programs. */
  telemetry: Telemetry;
  readonly totals = new UsageTotals();
  /** The calls each running step made so far, by its signal: billed even when the step then fails. */
  private readonly stepCalls = new WeakMap<AbortSignal, Usage[]>();
  /** Spending and its limits, shared with the programs this run calls. */
  readonly meter: Meter;
  readonly root: StepContext;
  /** The addresses of this program's steps (fingerprinted when the run opens a folder, which keeps them). */
  readonly addresses: StepAddresses;
  readonly startedAt: number;
  /** The runtime's own listeners (the run folder's trace); `options.onEvent` is the caller's. */
  private readonly observers: Array<(event: RunEvent) => void> = [];
  private readonly nested: boolean;
  /** The top-level run's core, for a called program's. */
  private readonly caller: RunCore | undefined;
  private readonly rootController = sharedController();
  /** What is removed from everything the run writes or shows (shared with called programs). */
  readonly secrets: Secrets;
  private readonly agentKits: AgentKits;
  /** The run's MCP servers, shared with called programs; stopped when the top-level run ends. */
  readonly mcp: RunMcp;
  /** The run's Agent Skills, resolved once per name, shared with called programs. */
  readonly skills: RunSkills;
  /** Where approvals are answered: the run folder's journal (set when it opens); none on other backends. */
  approvalAnswers: ((key: string) => Promise<Value | undefined>) | undefined;
  private readonly notices = new Set<string>();
  /** What the run protects from every agent's writes (run-skills.ts), found on first use. */
  private places: RunPlaces | undefined;

  /**
   * `caller` is set for a program called from another program's run: the two share the client, the
   * run-wide limit and the clock, and the called program's steps are recorded under `sitePrefix`
   * (`anchorPrefix` in content anchors, `structurePrefix` in structures).
   */
  constructor(
    readonly program: ProgramInfo,
    readonly options: RunOptions,
    caller?: {
      readonly core: RunCore;
      readonly sitePrefix: string;
      readonly anchorPrefix: string;
      readonly structurePrefix: string;
    },
  ) {
    this.meter =
      caller?.core.meter ??
      new Meter(
        { budget: options.budget, maxCalls: options.maxCalls },
        pricesOf(options, program),
        options.promptCaching !== false,
      );
    this.models = new ModelAccess(
      {
        options,
        meter: this.meter,
        source: program.source,
        trace: () => this.trace,
        telemetry: () => this.telemetry,
        refuse: (refusal) => this.stopForBudget(refusal),
        emit: (event) => this.emit(event),
        secrets: () => this.secrets,
      },
      caller?.core.models,
    );
    this.limiter = this.models.limiter;
    this.durability =
      caller !== undefined
        ? new ScopedStepStore(caller.core.durability, caller.sitePrefix)
        : (options.durability ?? new JournalStepStore(options.journal ?? new MemoryJournal()));
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
      caller?.structurePrefix ?? "",
      (segment) => this.addresses.structural(segment),
    );
    this.addresses = new StepAddresses(program, options, (name) => this.models.model(name), caller?.core.addresses);
    this.secrets = caller?.core.secrets ?? runSecrets(options);
    this.agentKits = new AgentKits(
      program.name,
      options,
      this.secrets,
      (message) => this.noticeOnce(message),
      (permissions) =>
        this.approvalAnswers === undefined
          ? undefined
          : durableAsker(permissions, this.approvalAnswers, program.source),
      () => this.protectedPlaces(),
    );
    this.mcp =
      caller?.core.mcp ??
      new RunMcp(
        options,
        this.secrets,
        (server, text) => this.trace?.server(server, text),
        (message) => this.noticeOnce(message),
      );
    this.skills = caller?.core.skills ?? new RunSkills(options, (message) => this.noticeOnce(message));
  }

  /**
   * What every agent's writes may not touch: where the skills of the run's programs are read (a called
   * program's core asks the top-level one) and the files `.mcp.json`'s servers run from the project.
   */
  protectedPlaces(): RunPlaces {
    if (this.caller !== undefined) return this.caller.protectedPlaces();
    return (this.places ??= runPlaces(this.program, this.options.cwd ?? process.cwd(), this.options.mcpConfig));
  }

  /** Aborts everything still running; `reason` is what the pending steps reject with. */
  abort(reason: unknown): void {
    this.rootController.abort(reason);
  }

  /** Aborts the whole run: this one, or the run that called this program. */
  stopRun(reason: unknown): void {
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

  /** The guard and tools of an agent with these permissions (agent-kits.ts). */
  toolbox(permissions: Permissions | undefined, agent: string | undefined): Promise<Toolbox> {
    return this.agentKits.toolbox(permissions, agent);
  }

  /** `toolbox` with the MCP tools `permissions: mcp:` allows (their servers started now if need be). */
  toolboxWithMcp(
    permissions: Permissions | undefined,
    agent: string | undefined,
    signal: AbortSignal,
  ): Promise<Toolbox> {
    return this.agentKits.toolboxWithMcp(permissions, agent, (globs) => this.mcp.tools(globs, signal));
  }

  /** The system prompt of a session of `agent` (or of no agent) that adds no skills or notes of its own. */
  systemPromptOf(agent: AgentDefinition | undefined): string {
    return this.agentKits.systemPromptOf(agent);
  }

  /** Whether sessions of this agent (undefined: of no agent) have used tools in this run. */
  usedTools(agent: string | undefined): boolean {
    return this.agentKits.usedTools(agent);
  }

  recordToolUse(agent: string | undefined): void {
    this.agentKits.recordToolUse(agent);
  }

  /** The model id for a `.prose` model name. */
  model(name: string | undefined): string {
    return this.models.model(name);
  }

  /** The model's output limit (output-limits.ts): a session's default `max_tokens`. */
  outputLimit(model: string, signal: AbortSignal): Promise<number> {
    return this.models.outputLimit(model, signal);
  }

  /**
   * One Messages API call (model-access.ts), inside the run's cap and budget, cancelled with `signal`,
   * down the model's fallback chain; a session's calls (`site.step`) stream.
   */
  async callModel(
    request: MessageCreateParamsNonStreaming,
    signal: AbortSignal,
    site?: CallSite,
  ): Promise<{ message: Message; usage: Usage }> {
    const answered = await this.models.call(request, signal, site);
    this.stepCalls.get(signal)?.push(answered.usage);
    return answered;
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
   * Runs one model-facing step in `context`: replays it when it was recorded, else executes it under
   * the step time limit and records the outcome before returning. `ask` is what the step asks: the
   * store gets it in the step's address (address/step-address.ts); `execute` gets the step's site.
   */
  async step<T extends Value>(
    context: StepContext,
    kind: StepKind,
    at: Site,
    label: string,
    ask: StepAsk,
    execute: (signal: AbortSignal, site: string) => Promise<StepOutcome<T>>,
  ): Promise<StepResult<T>> {
    const address = this.addresses.step(context, kind, at, ask, () => context.trail.entries());
    const { site } = address;
    const limitMs = this.options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
    let limit: ReturnType<typeof stepSignal> | undefined;
    let replayedFailure: ProseError | undefined;
    // A failure a `catch:` takes is journaled then (failed-steps.ts); one replayed from the journal is not again.
    // The calls a failed step made were billed: they count in the run's totals and its record.
    const failed = (error: ProseError, replayed = false): ProseError => {
      const usage = replayed || limit === undefined ? [] : (this.stepCalls.get(limit.signal) ?? []);
      this.totals.add(usage);
      return failedStepError(error, {
        address,
        kind,
        at,
        label,
        failed: failureOf(error, limit?.signal.aborted === true && !context.signal.aborted),
        usage,
        replayed,
        record: (step) => this.durability.recordFailure?.(address, step),
      });
    };
    // DBOS replays a workflow's steps in the order they ran: a cancelled branch replays the steps it
    // ran before its cancellation (from their checkpoints, nothing asked again), under the run's
    // signal as a `finally:` is, and stops where it stopped then.
    const replaying =
      context.cancelled &&
      context.signal.aborted &&
      !context.shield.aborted &&
      (await this.durability.recorded?.(site)) === true;
    if (replaying) context.enterFinally();
    try {
      const executeStep = async (): Promise<RecordedStep> => {
        limit = stepSignal(context.signal, limitMs);
        // The step's model requests are sent under it: what the trace finds the step by.
        const signal = limit.signal;
        this.stepCalls.set(signal, []);
        const run = async (): Promise<RecordedStep> => {
          const outcome = await this.telemetry.step(kind, at, this.traceSite(site), ask, () => execute(signal, site));
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
            ...(outcome.remembered === undefined ? {} : { remembered: this.secrets.redactDeep(outcome.remembered) }),
          } satisfies RecordedStep;
        };
        return this.trace === undefined
          ? run()
          : this.trace.step(
              this.traceSite(site),
              kind,
              at,
              label,
              run,
              (error) => error instanceof WaitingForInput,
              () => context.signal.aborted,
              signal,
            );
      };
      // The branch's signal: a store that replays (prosec test) cancels a step its lost race cancels.
      // A store may write a failure whole (DBOS: its stack and an API error's body): without secrets.
      const { step, replayed } = await this.durability.step(
        address,
        this.secrets.failureRedacted(executeStep),
        context.signal,
      );
      if (step.failed !== undefined) throw (replayedFailure = failed(replayedError(step.failed), true));
      return {
        value: step.value as T,
        ...(step.reason === undefined ? {} : { reason: step.reason }),
        usage: step.usage,
        ...(step.truncated === undefined ? {} : { truncated: step.truncated }),
        ...(step.remembered === undefined ? {} : { remembered: step.remembered }),
        replayed,
      };
    } catch (error) {
      // The request the cancellation aborted, replayed: the branch is cancelled here, as it was then.
      if (replaying && isAbortError(error)) throw context.cancellation ?? error;
      if (error === replayedFailure) throw error;
      if (error instanceof WaitingForInput) throw error;
      if (error instanceof RunStateError) {
        // The run's state forbids going on (a step would repeat finished tool calls): the whole run stops.
        this.stopRun(error);
        throw error;
      }
      if (error instanceof StepMismatch) throw this.error(error.message, at);
      if (context.signal.aborted) throw context.signal.reason ?? error;
      if (limit?.signal.aborted && limit.signal.reason instanceof ProseError)
        throw failed(this.error(limit.signal.reason.reason, at, label, error));
      if (error instanceof ProseError && error.file !== undefined) throw failed(error);
      // A cancelled step did not fail: nothing to replay.
      if (isAbortError(error)) throw this.error("The step was cancelled.", at, label, error);
      throw failed(this.error(`${label} failed: ${describeError(error)}`, at, label, error));
    } finally {
      if (replaying) context.exitFinally();
      limit?.release();
    }
  }

  /** A step's site as the journal has it: a called program's steps under their caller's prefix. */
  traceSite(site: string): string {
    return this.durability instanceof ScopedStepStore ? this.durability.fullSite(site) : site;
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
}
