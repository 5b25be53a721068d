/**
 * A run's OpenTelemetry spans (docs/production.md, "Tracing"): the run, each step, each parallel
 * block and its branches, each model turn and each tool call, parented as they nest.
 *
 * The runtime depends on `@opentelemetry/api` only: without a registered provider every span is a
 * no-op, and a run whose root span does not record makes no other span at all (`OFF`). Parents are
 * kept by the runtime itself, in an AsyncLocalStorage of its own, not by the API's context manager,
 * which is a no-op unless the application registers one: prosec's tree is right whatever the
 * application registered. The API's context is still set around each model request, so the SDK's own
 * span (sdk-spans.ts) nests under the turn's when a context manager exists (NodeTracerProvider
 * registers one; `prosec run` does).
 *
 * The hooks that hold no run (the client's `fetch`, fallbacks, a session's `retry:`) record on the
 * innermost span of the current async context: `traceResponse`, `traceFallback`, `traceRetry`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type {
  Message,
  MessageCreateParamsNonStreaming,
  ToolResultBlockParam,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages.js";
import {
  context as otelContext,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import { isAbortError, WaitingForInput } from "../errors.js";
import type { ProgramInfo, Site, StepAsk, StepKind, Usage } from "../types.js";
import type { PendingEvent } from "../types/internal.js";
import { ERROR_TYPE, GEN_AI, HTTP_RESEND_COUNT, HTTP_STATUS, PROSE } from "./attributes.js";
import { contentOptedIn, inputMessages, outputMessages, redactedJson, systemText } from "./content.js";
import { formatTraceparent, parseTraceparent } from "./traceparent.js";

const TRACER = "prosec";
const PROVIDER = "anthropic";

/** The innermost span of an async context, with what its children repeat. */
interface Frame {
  readonly span: Span;
  /** The step key of the step this span is, or is inside. */
  readonly key?: string;
  /** HTTP attempts of a model turn (traceResponse). */
  attempts?: number;
}

const frames = new AsyncLocalStorage<Frame>();

/** How a run ends, as its span says (`prose.status`). */
export type RunEnd = "complete" | "failed" | "waiting" | "interrupted";

/** A `parallel:` block or `map` as a span, with one child span per branch. */
export interface ParallelSpan {
  branch<T>(index: number, run: () => Promise<T>): Promise<T>;
  /** Ends the block's span once every branch settled; `failed` marks it an error. */
  end(failed: boolean): void;
}

/** What a run's parts call; `OFF` when nothing records. */
export interface Telemetry {
  readonly enabled: boolean;
  /** The run's root span as a `traceparent`, kept in the run's state (undefined when off). */
  readonly traceparent: string | undefined;
  /** A resumed run's root span links to the root span of the run's first process. */
  linkResumed(traceparent: string | undefined): void;
  end(status: RunEnd, usage: readonly Usage[], error?: unknown): void;
  /** A step the run executes (a replayed step makes no span: this process did nothing for it). */
  step<T>(kind: StepKind, at: Site, key: string, ask: StepAsk, run: () => Promise<T>): Promise<T>;
  use<T>(at: Site, name: string, key: string, run: () => Promise<T>): Promise<T>;
  parallel(kind: "parallel" | "map", at: Site, key: string, branches: number): ParallelSpan;
  turn<R extends { readonly message: Message }>(
    params: MessageCreateParamsNonStreaming,
    send: () => Promise<R>,
  ): Promise<R>;
  tool(call: ToolUseBlock, run: () => Promise<ToolResultBlockParam>): Promise<ToolResultBlockParam>;
  /** A run event (core.ts `emit`): the ones worth a span event become one. */
  event(event: PendingEvent): void;
}

const NO_PARALLEL: ParallelSpan = { branch: (_index, run) => run(), end: () => {} };

export const OFF: Telemetry = {
  enabled: false,
  traceparent: undefined,
  linkResumed: () => {},
  end: () => {},
  step: (_kind, _at, _key, _ask, run) => run(),
  use: (_at, _name, _key, run) => run(),
  parallel: () => NO_PARALLEL,
  turn: (_params, send) => send(),
  tool: (_call, run) => run(),
  event: () => {},
};

const STEP_NAMES: { readonly [kind in StepKind]?: string } = {
  session: "session",
  judge: "judgment",
  choose: "choice",
  extract: "extraction",
  input: "input",
};

/** The spans of one run, started with its root span; `OFF` when no provider records it. */
export function startTelemetry(
  program: ProgramInfo,
  runId: string,
  redact: (text: string) => string,
  traceParent?: string,
): Telemetry {
  const tracer = trace.getTracer(TRACER, program.compilerVersion);
  const parent = parseTraceparent(traceParent);
  const root = tracer.startSpan(
    `run ${program.name}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: { [PROSE.runId]: runId, [PROSE.program]: program.name, [PROSE.source]: program.source },
    },
    parent === undefined ? undefined : trace.setSpanContext(otelContext.active(), parent),
  );
  if (!root.isRecording()) {
    root.end();
    return OFF;
  }
  return new RunTelemetry(tracer, root, runId, redact, contentOptedIn());
}

class RunTelemetry implements Telemetry {
  readonly enabled = true;
  readonly traceparent: string | undefined;

  constructor(
    private readonly tracer: Tracer,
    private readonly root: Span,
    private readonly runId: string,
    private readonly redact: (text: string) => string,
    private readonly content: boolean,
  ) {
    this.traceparent = formatTraceparent(root.spanContext());
  }

  linkResumed(traceparent: string | undefined): void {
    this.root.setAttribute(PROSE.resumed, true);
    const first = parseTraceparent(traceparent);
    if (first !== undefined && first.spanId !== this.root.spanContext().spanId)
      this.root.addLink({ context: first, attributes: { [PROSE.resumed]: true } });
  }

  end(status: RunEnd, usage: readonly Usage[], error?: unknown): void {
    if (status === "failed" || status === "interrupted") this.failed(this.root, error);
    // The run's own ending, not the cancellation that caused it (an interrupted run is not `cancelled`).
    this.root.setAttributes({ [PROSE.status]: status, ...usageAttributes(usage) });
    this.root.end();
  }

  step<T>(kind: StepKind, at: Site, key: string, ask: StepAsk, run: () => Promise<T>): Promise<T> {
    const name = STEP_NAMES[kind];
    if (name === undefined) return run();
    const details = kind === "session" ? (ask.details() as { readonly agent?: unknown } | undefined) : undefined;
    const agent = typeof details?.agent === "string" ? details.agent : undefined;
    const attributes: Attributes = {
      ...this.site(at, key),
      [PROSE.kind]: name,
      ...(ask.binding === undefined ? {} : { [PROSE.binding]: ask.binding }),
      ...(agent === undefined ? {} : { [PROSE.agent]: agent, [GEN_AI.agentName]: agent }),
      ...(this.content ? { [PROSE.label]: this.redact(ask.text) } : {}),
    };
    const span = this.start(ask.binding === undefined ? name : `${name} ${ask.binding}`, attributes);
    return this.within(span, key, run);
  }

  use<T>(at: Site, name: string, key: string, run: () => Promise<T>): Promise<T> {
    const span = this.start(`use ${name}`, { ...this.site(at, key), [PROSE.kind]: "use", [PROSE.program]: name });
    return this.within(span, key, run);
  }

  parallel(kind: "parallel" | "map", at: Site, key: string, branches: number): ParallelSpan {
    const span = this.start(kind, { ...this.site(at, key), [PROSE.kind]: kind, [PROSE.branches]: branches });
    return {
      // The parent is this block's span, not the async context's: a durable store may run a branch elsewhere (DBOS).
      branch: (index, run) => {
        const branch = this.tracer.startSpan(
          `branch ${index}`,
          { attributes: { [PROSE.runId]: this.runId, [PROSE.stepKey]: key, [PROSE.branch]: index } },
          trace.setSpan(otelContext.active(), span),
        );
        return this.within(branch, key, run);
      },
      end: (failed) => {
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  async turn<R extends { readonly message: Message }>(
    params: MessageCreateParamsNonStreaming,
    send: () => Promise<R>,
  ): Promise<R> {
    const step = frames.getStore();
    const span = this.tracer.startSpan(
      `chat ${params.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI.operation]: "chat",
          [GEN_AI.provider]: PROVIDER,
          [GEN_AI.system]: PROVIDER,
          [GEN_AI.requestModel]: params.model,
          [GEN_AI.requestMaxTokens]: params.max_tokens,
          [PROSE.runId]: this.runId,
          ...(step?.key === undefined ? {} : { [PROSE.stepKey]: step.key }),
          ...(this.content
            ? {
                [GEN_AI.systemInstructions]: systemText(params, this.redact),
                [GEN_AI.inputMessages]: inputMessages(params.messages, this.redact),
              }
            : {}),
        },
      },
      this.parent(),
    );
    const frame: Frame = { span, ...(step?.key === undefined ? {} : { key: step.key }), attempts: 0 };
    try {
      const result = await frames.run(frame, () => otelContext.with(trace.setSpan(otelContext.active(), span), send));
      const message = result.message;
      const usage = message.usage as Partial<Message["usage"]> | undefined;
      span.setAttributes({
        [GEN_AI.responseModel]: message.model,
        [GEN_AI.responseId]: message.id,
        [GEN_AI.finishReasons]: message.stop_reason === null ? [] : [message.stop_reason],
        [GEN_AI.inputTokens]: usage?.input_tokens ?? 0,
        [GEN_AI.outputTokens]: usage?.output_tokens ?? 0,
        ...(usage?.cache_read_input_tokens ? { [GEN_AI.cacheReadTokens]: usage.cache_read_input_tokens } : {}),
        ...(usage?.cache_creation_input_tokens
          ? { [GEN_AI.cacheCreationTokens]: usage.cache_creation_input_tokens }
          : {}),
        ...(this.content ? { [GEN_AI.outputMessages]: outputMessages(message, this.redact) } : {}),
      });
      return result;
    } catch (error) {
      this.failed(span, error);
      throw error;
    } finally {
      if ((frame.attempts ?? 0) > 1) span.setAttribute(HTTP_RESEND_COUNT, frame.attempts! - 1);
      span.end();
    }
  }

  async tool(call: ToolUseBlock, run: () => Promise<ToolResultBlockParam>): Promise<ToolResultBlockParam> {
    const step = frames.getStore();
    const span = this.tracer.startSpan(
      `execute_tool ${this.redact(call.name)}`,
      {
        attributes: {
          [GEN_AI.operation]: "execute_tool",
          [GEN_AI.toolName]: this.redact(call.name),
          [GEN_AI.toolCallId]: this.redact(call.id),
          [GEN_AI.toolType]: "function",
          [PROSE.runId]: this.runId,
          ...(step?.key === undefined ? {} : { [PROSE.stepKey]: step.key }),
          ...(this.content ? { [GEN_AI.toolArguments]: redactedJson(call.input, this.redact) } : {}),
        },
      },
      this.parent(),
    );
    try {
      const result = await frames.run({ span, ...(step?.key === undefined ? {} : { key: step.key }) }, run);
      if (this.content) span.setAttribute(GEN_AI.toolResult, redactedJson(result.content ?? "", this.redact));
      if (result.is_error === true) {
        // The result text may hold what the tool read: on the span only with content.
        span.setAttribute(ERROR_TYPE, "tool_error");
        span.setStatus({
          code: SpanStatusCode.ERROR,
          ...(this.content ? { message: redactedJson(result.content ?? "", this.redact) } : {}),
        });
      }
      return result;
    } catch (error) {
      this.failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  event(event: PendingEvent): void {
    if (event.type !== "unexpected-answer") return;
    frames.getStore()?.span.addEvent("prose.unexpected_answer", {
      "prose.problem": event.problem,
      "prose.action": event.action,
      [PROSE.attempt]: event.attempt,
      ...(this.content ? { "prose.detail": this.redact(event.detail) } : {}),
    });
  }

  private site(at: Site, key: string): Attributes {
    return { [PROSE.runId]: this.runId, [PROSE.stepKey]: key, [PROSE.line]: at.line, [PROSE.column]: at.column };
  }

  /** The context a new span is a child of: the innermost span of this async context, else the run's. */
  private parent(): Context {
    return trace.setSpan(otelContext.active(), frames.getStore()?.span ?? this.root);
  }

  private start(name: string, attributes: Attributes): Span {
    return this.tracer.startSpan(name, { attributes }, this.parent());
  }

  /** Runs `run` with `span` as the innermost span, ending it with the outcome. */
  private async within<T>(span: Span, key: string, run: () => Promise<T>): Promise<T> {
    try {
      // The API's context too: what the SDK does inside the step (a model lookup) nests under it.
      return await frames.run({ span, key }, () => otelContext.with(trace.setSpan(otelContext.active(), span), run));
    } catch (error) {
      this.failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /**
   * An error on its span: status ERROR and an `exception` event, its message redacted. A wait is no
   * error. A cancelled step (a lost race, a fail-fast sibling, Ctrl-C) did not complete: status ERROR
   * described `cancelled` and `error.type` `cancelled`, as OpenTelemetry's HTTP conventions mark a
   * request its caller aborted, with no `exception` event (nothing went wrong inside it).
   */
  private failed(span: Span, error: unknown): void {
    if (error instanceof WaitingForInput) {
      span.setAttribute(PROSE.status, "waiting");
      return;
    }
    if (isAbortError(error)) {
      span.setAttributes({ [PROSE.status]: "cancelled", [ERROR_TYPE]: "cancelled" });
      span.setStatus({ code: SpanStatusCode.ERROR, message: "cancelled" });
      return;
    }
    const type = error instanceof Error ? error.name : "Error";
    const message = this.redact(error instanceof Error ? error.message : String(error));
    span.addEvent("exception", { "exception.type": type, "exception.message": message });
    span.setAttribute(ERROR_TYPE, type);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  }
}

function usageAttributes(usage: readonly Usage[]): Attributes {
  let input = 0;
  let output = 0;
  for (const entry of usage) {
    input += entry.inputTokens;
    output += entry.outputTokens;
  }
  return { [GEN_AI.inputTokens]: input, [GEN_AI.outputTokens]: output };
}

/** The client's `fetch` got a response (pace.ts): counted on the current turn; an error response is an event. */
export function traceResponse(status: number): void {
  const frame = frames.getStore();
  if (frame?.attempts === undefined) return;
  frame.attempts++;
  if (status >= 400)
    frame.span.addEvent("prose.http_error", { [HTTP_STATUS]: status, [PROSE.attempt]: frame.attempts });
}

/**
 * A model call moves from one model to the next of its fallback chain: a `prose.fallback` event on
 * the current span (the turn's, inside a model call). `reason` is what failed, e.g. `overloaded_error` or `529`.
 */
export function traceFallback(from: string, to: string, reason?: string): void {
  frames.getStore()?.span.addEvent("prose.fallback", {
    "prose.fallback.from": from,
    "prose.fallback.to": to,
    ...(reason === undefined ? {} : { [ERROR_TYPE]: reason }),
  });
}

/** A step's `retry:` starts attempt `attempt` (2, 3, ...): a `prose.retry` event on the step's span. */
export function traceRetry(attempt: number): void {
  frames.getStore()?.span.addEvent("prose.retry", { [PROSE.attempt]: attempt });
}
