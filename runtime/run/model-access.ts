/**
 * How a run reaches the model: the client, the run-wide cap on calls in flight, model names
 * resolved to ids, and `call()`, the one path by which a Messages API request is sent (inside the
 * cap, admitted by the meter, through the run's trace). A called program shares its caller's client
 * and cap.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { withBreakpoints } from "../model/caching.js";
import { connectionFor } from "../model/client.js";
import { Limiter } from "../model/limiter.js";
import { resolveModel } from "../model/models.js";
import { outputLimit } from "../model/output-limits.js";
import type { TraceWriter } from "../durable/trace-writer.js";
import type { Meter, Refusal } from "./meter.js";
import { outsideContext } from "./step-context.js";
import type { RunOptions, Usage } from "../types.js";

/** The default hard cap of a run; the API's pace (pace.ts) usually decides first. */
const DEFAULT_CONCURRENCY = 64;

/** What a model call needs from its run. */
export interface CallingRun {
  readonly options: RunOptions;
  readonly meter: Meter;
  /** The run's trace, read at each call: it is set when the run opens its folder. */
  trace(): TraceWriter | undefined;
  /** A request the budget refuses: stops the run and throws. */
  refuse(refusal: Refusal): Promise<never>;
}

export class ModelAccess {
  readonly client: Anthropic;
  /** The run's hard cap on model calls in flight (`concurrency`). */
  readonly limiter: Limiter;
  private readonly modelIds = new Map<string, string>();

  constructor(
    private readonly run: CallingRun,
    caller?: ModelAccess,
  ) {
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
    return outputLimit(this.client, model, signal);
  }

  /**
   * One Messages API call, inside the run's cap, cancelled with `signal`; each of its HTTP attempts
   * also waits for the API's pace (pace.ts, in the client's `fetch`). A call still waiting for either
   * when `signal` aborts is dropped unsent. With prompt caching (the default), `cache_control`
   * breakpoints where the request's stable prefixes end (caching.ts); the meter admits it first (meter.ts).
   */
  async call(
    request: MessageCreateParamsNonStreaming,
    signal: AbortSignal,
  ): Promise<{ message: Message; usage: Usage }> {
    const params = this.run.options.promptCaching === false ? request : withBreakpoints(request);
    return this.limiter.run(signal, async () => {
      const reservation = this.run.meter.admit(params);
      if ("remedy" in reservation) return this.run.refuse(reservation);
      let usage: Usage | undefined;
      const send = async (): Promise<{ message: Message; usage: Usage }> => {
        const message = await outsideContext(() => this.client.messages.create(params, { signal }));
        if (!message || !Array.isArray(message.content))
          throw new Error("The model server answered with something that is not a message.");
        usage = usageOf(params.model, message.usage);
        return { message, usage };
      };
      const trace = this.run.trace();
      try {
        return await (trace === undefined ? send() : trace.request(params, send));
      } finally {
        reservation.settle(usage);
      }
    });
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
