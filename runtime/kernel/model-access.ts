/**
 * How a run reaches the model: the client, the run-wide cap on calls in flight, model names
 * resolved to ids, fallback chains, and `call()`, the one path by which a Messages API request is
 * sent (inside the cap, down the model's fallback chain, each request admitted by the meter, through
 * the run's trace, a session's streamed). A called program shares its caller's client, cap and chains.
 */
import { basename, dirname, join, resolve } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { withBreakpoints } from "../model/caching.js";
import { connectionFor } from "../model/client.js";
import { runChains, withFallback, type ModelChains } from "../model/fallback.js";
import { withBoundedInputs } from "../model/input-depth.js";
import { requestMessage } from "../model/stream.js";
import { streamListener, type CallSite } from "../model/streamed-text.js";
import { Limiter } from "../model/limiter.js";
import { resolveModel } from "../model/models.js";
import { outputLimit } from "../model/output-limits.js";
import type { TraceWriter } from "../durable/trace-writer.js";
import { traceFallback, type Telemetry } from "../telemetry/run-telemetry.js";
import { markAbortedEstimate, type Meter, type Refusal } from "../cost/meter.js";
import type { Secrets } from "../tools/secrets.js";
import { outsideContext } from "./step-context.js";
import type { RunOptions, Usage } from "../types.js";
import type { PendingEvent } from "../types/internal.js";

/**
 * Where a run keeps the output limits its servers reported (output-limits.ts): beside the module cache
 * of its project, for a run folder in a project's `.prose/runs/`; none for a run folder elsewhere.
 */
function limitsFileOf(runDir: string | undefined): string | undefined {
  if (runDir === undefined) return undefined;
  const runs = dirname(resolve(runDir));
  const project = dirname(runs);
  return basename(runs) === "runs" && basename(project) === ".prose"
    ? join(project, "cache", "model-limits.json")
    : undefined;
}

/** The default hard cap of a run; the API's pace (pace.ts) usually decides first. */
const DEFAULT_CONCURRENCY = 64;

/** What a model call needs from its run. */
export interface CallingRun {
  readonly options: RunOptions;
  readonly meter: Meter;
  /** The program's source file, for a mistake in `PROSEC_FALLBACK`. */
  readonly source: string;
  /** The run's trace, read at each call: it is set when the run opens its folder. */
  trace(): TraceWriter | undefined;
  /** The run's OpenTelemetry spans, read at each call: they start with the run. */
  telemetry(): Telemetry;
  /** A request the budget refuses: stops the run and throws. */
  refuse(refusal: Refusal): Promise<never>;
  /** Streamed text and fallbacks are told as run events. */
  emit(event: PendingEvent): void;
  secrets(): Secrets;
}

export class ModelAccess {
  readonly client: Anthropic;
  /** The run's hard cap on model calls in flight (`concurrency`). */
  readonly limiter: Limiter;
  /** The models a call falls back to (fallback.ts). */
  readonly chains: ModelChains;
  private readonly modelIds = new Map<string, string>();
  /** Where the run keeps its servers' output limits; found once, not per session. */
  private readonly limitsFile: string | undefined;

  constructor(
    private readonly run: CallingRun,
    caller?: ModelAccess,
  ) {
    this.chains = caller?.chains ?? runChains(run.options, run.source);
    this.limitsFile = limitsFileOf(run.options.runDir);
    if (caller !== undefined) {
      this.client = caller.client;
      this.limiter = caller.limiter;
    } else {
      const connection = connectionFor(run.options);
      this.client = connection.client;
      this.limiter = new Limiter(run.options.concurrency ?? DEFAULT_CONCURRENCY);
      connection.pace?.allow(this.limiter.limit);
    }
  }

  /** The model id for a `.prose` model name (resolved once per name and run: reading the environment is slow). */
  model(name: string | undefined): string {
    const key = name ?? "";
    let id = this.modelIds.get(key);
    if (id === undefined) {
      id = resolveModel(name, this.run.options.models);
      this.modelIds.set(key, id);
    }
    return id;
  }

  /** The model's output limit (output-limits.ts): a session's default `max_tokens`. */
  outputLimit(model: string, signal: AbortSignal): Promise<number> {
    return outputLimit(this.client, model, signal, this.limitsFile);
  }

  /**
   * One Messages API call, inside the run's cap, cancelled with `signal`, moving down the model's
   * fallback chain while a model cannot answer (fallback.ts). A session's calls stream (`site.step`).
   */
  call(
    request: MessageCreateParamsNonStreaming,
    signal: AbortSignal,
    site?: CallSite,
  ): Promise<{ message: Message; usage: Usage }> {
    return this.limiter.run(signal, () =>
      withFallback(
        this.chains.of(request.model),
        async (model) =>
          this.send(
            model === request.model ? request : await this.fallbackRequest(request, model, signal),
            signal,
            site,
          ),
        (from, to, reason) => {
          traceFallback(from, to, this.run.secrets().redact(reason));
          this.run.emit({
            type: "fallback",
            ...(site === undefined ? {} : { at: site.at }),
            label: site?.label ?? "A model call",
            from,
            to,
            reason,
          });
        },
      ),
    );
  }

  /** `request` for the next model of its chain: `max_tokens` within that model's output limit unless the run set it. */
  private async fallbackRequest(
    request: MessageCreateParamsNonStreaming,
    model: string,
    signal: AbortSignal,
  ): Promise<MessageCreateParamsNonStreaming> {
    const limit = this.run.options.maxTokens === undefined ? await this.outputLimit(model, signal) : Infinity;
    return { ...request, model, max_tokens: Math.min(request.max_tokens, limit) };
  }

  /**
   * One request to one model; each of its HTTP attempts also waits for the API's pace (pace.ts, in the
   * client's `fetch`). A call still waiting when `signal` aborts is dropped unsent. With prompt caching
   * (the default), `cache_control` breakpoints where the request's stable prefixes end, laid out for
   * its model (caching.ts); the meter admits it first (meter.ts).
   */
  private async send(
    request: MessageCreateParamsNonStreaming,
    signal: AbortSignal,
    site: CallSite | undefined,
  ): Promise<{ message: Message; usage: Usage }> {
    // A cancelled branch's next request is never sent (nor charged).
    signal.throwIfAborted();
    const laidOut = this.run.options.promptCaching === false ? request : withBreakpoints(request);
    // A `max_tokens` the run chose is sent as it is; the model's own limit may be fitted to a budget.
    const fitting = this.run.options.maxTokens === undefined ? { concurrency: this.limiter.limit } : undefined;
    const reservation = this.run.meter.admit(laidOut, fitting);
    if ("remedy" in reservation) return this.run.refuse(reservation);
    const params =
      reservation.maxTokens === laidOut.max_tokens ? laidOut : { ...laidOut, max_tokens: reservation.maxTokens };
    const listener = streamListener(site, params.model, this.run.options, this.run.secrets(), (event) =>
      this.run.emit(event),
    );
    let usage: Usage | undefined;
    const send = (): Promise<{ message: Message; usage: Usage }> => this.run.telemetry().turn(params, answer);
    const answer = async (): Promise<{ message: Message; usage: Usage }> => {
      const { message: received, cut } = await outsideContext(() =>
        requestMessage(this.client, params, signal, listener),
      );
      if (!received || !Array.isArray(received.content))
        throw new Error("The model server answered with something that is not a message.");
      // Measured before anything walks it: an input nested 100,000 deep would overflow every walk.
      const message = withBoundedInputs(received);
      // Attempts whose stream was cut were billed for what the server reported: the call counts them.
      usage = [message.usage, ...cut].map((reported) => usageOf(params.model, reported)).reduce(addUsage);
      return { message, usage };
    };
    const trace = this.run.trace();
    try {
      return await (trace === undefined ? send() : trace.request(params, signal, send));
    } catch (error) {
      // The estimate an aborted request was charged travels with its error to the turn's checkpoint
      // (not on the signal's reason, which other requests may throw too: that would count it twice).
      const estimate = reservation.settle(usage, signal.aborted);
      if (error !== signal.reason) markAbortedEstimate(error, estimate);
      throw error;
    } finally {
      reservation.settle(usage, signal.aborted);
    }
  }
}

function addUsage(total: Usage, more: Usage): Usage {
  const written = (total.cacheWriteTokens ?? 0) + (more.cacheWriteTokens ?? 0);
  const read = (total.cacheReadTokens ?? 0) + (more.cacheReadTokens ?? 0);
  return {
    model: total.model,
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    ...(written === 0 ? {} : { cacheWriteTokens: written }),
    ...(read === 0 ? {} : { cacheReadTokens: read }),
  };
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
