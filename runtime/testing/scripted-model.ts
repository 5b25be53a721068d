/**
 * A scripted model: the real runtime (sessions and their tool loops, judgments, choices, extraction,
 * parallel branches, program calls) runs against answers written in a test, with no server.
 *
 * The seam is the Anthropic SDK's `fetch` option: the run's client sends real Messages API requests,
 * and this module answers them in-process. To know which step a request belongs to, the run's
 * durability (the runtime's ordinary one, wrapped) enters each step in an AsyncLocalStorage that the
 * SDK carries through to `fetch`; the answer is chosen there, before the step runs, so an unanswered
 * step or a spent sequence fails with the step's `.prose` line.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import Anthropic from "@anthropic-ai/sdk";
import { text, type DurableStep, type RecordedStep, type RunEvent, type RunOptions, type Value } from "../index.js";
import { JournalStepStore } from "../durable/durability.js";
import { MemoryJournal } from "../durable/journal.js";
import type { StepAddress, StepStore } from "../types.js";
import {
  AnswerBook,
  settle,
  turnsOf,
  type Answer,
  type Answers,
  type ScriptedKind,
  type ScriptedStep,
  type ToolCall,
} from "./answers.js";
import { exampleOf, typedAnswerSchema } from "./schema-example.js";
import { streamedAnswer } from "./streamed-answer.js";

/** Defaults for steps no answer names, per kind, or one function for all. */
export type Defaults = { readonly [kind in ScriptedKind]?: Answer } | ((step: ScriptedStep) => Answer);

export interface Script {
  /** Answers keyed by binding name, call site or condition text (see answers.ts). */
  readonly answers?: Answers;
  /**
   * For the other steps. Built in: a session replies `scripted reply: <binding or label>`, a judgment
   * says yes, a choice takes the first option, an extraction gives an empty list, `null` or no.
   */
  readonly defaults?: Defaults;
  /** A step that no answer names fails the run instead of getting a default. */
  readonly strict?: boolean;
}

/** What a run with the scripted model may set: everything but how the model is reached and stored. */
export type ScriptedRunOptions = Omit<
  RunOptions,
  | "apiKey"
  | "baseURL"
  | "fetch"
  | "client"
  | "maxRetries"
  | "requestTimeoutMs"
  | "journal"
  | "durability"
  | "runDir"
  | "resume"
>;

/** One Messages API request the run made, as the model received it. */
export interface ScriptedRequest {
  /** The step it was made for. */
  readonly step: ScriptedStep;
  /** 0 for a step's first request, then one more per tool-use round. */
  readonly turn: number;
  readonly model: string;
  /** The system prompt, as text. */
  readonly system: string;
  /** The last user message as text: a session's task and context, a judgment's question with the values in scope, tool results. */
  readonly prompt: string;
  /** The names of the tools offered. */
  readonly tools: readonly string[];
  /** The request body as sent. */
  readonly body: { readonly [key: string]: unknown };
}

interface StepState {
  readonly model: ScriptedModel;
  readonly step: ScriptedStep;
  /** The settled answer; undefined for the built-in default. */
  readonly answer: Answer | undefined;
  turn: number;
}

const current = new AsyncLocalStorage<StepState>();

/**
 * The model of one test: its answers are handed out across every run given its `options()` (a
 * sequence goes on from run to run), and `requests` keeps the requests of all of them.
 */
export class ScriptedModel {
  readonly requests: ScriptedRequest[] = [];
  private readonly book: AnswerBook;
  private readonly client: Anthropic;

  constructor(private readonly script: Script = {}) {
    this.book = new AnswerBook(script.answers ?? {});
    this.client = new Anthropic({
      // A ready client's key is one of the run's secrets (redacted wherever it appears): a word like
      // "scripted" would be struck from every message. No text holds this one.
      apiKey: "prosec-testing-no-key-7f3a9c",
      maxRetries: 0,
      fetch: (input, init) => Promise.resolve(this.answer(input, init)),
    });
  }

  /** Run options that send a run's model calls to this script: pass them to a compiled module's `run`. */
  options(extra: ScriptedRunOptions = {}): RunOptions {
    return {
      ...extra,
      client: this.client,
      durability: new ScriptedDurability(this, new JournalStepStore(new MemoryJournal())),
    };
  }

  /** The requests made for the steps `key` names (the same rules as the answers' keys). */
  requestsFor(key: string): ScriptedRequest[] {
    const book = new AnswerBook({ [key]: null });
    return this.requests.filter((request) => book.keyFor(request.step) !== undefined);
  }

  /** Answer keys that no step used: usually a typo or a step the program no longer has. */
  unusedAnswers(): string[] {
    return this.book.unused();
  }

  /** Chooses the answer of a step before it runs. */
  enter(step: Omit<ScriptedStep, "call">): StepState {
    const key = this.book.keyFor(step);
    if (key !== undefined) return { model: this, ...this.book.take(key, step), turn: 0 };
    if (this.script.strict === true)
      throw new Error(
        `No scripted answer names this ${step.kind}${step.binding === undefined ? "" : ` (${step.binding})`}, and the script is strict.`,
      );
    const defaults = this.script.defaults;
    const fallback = typeof defaults === "function" ? defaults : defaults?.[step.kind];
    const full = { ...step, call: 0 };
    return {
      model: this,
      step: full,
      answer: fallback === undefined ? undefined : settle(fallback, full, `the default ${step.kind} answer`),
      turn: 0,
    };
  }

  private answer(input: string | URL | Request, init: RequestInit | undefined): Response {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // A model's output limit (runtime/output-limits.ts): a script does not say, so the runtime's default applies.
    if (/\/v1\/models\/[^/]+$/.test(url.pathname)) return notFound(url.pathname);
    const state = current.getStore();
    if (state === undefined || state.model !== this)
      return failure(`a request outside any step of a scripted run: ${url.pathname}`);
    if (!url.pathname.endsWith("/v1/messages"))
      return failure(`the scripted model only answers the Messages API, not ${url.pathname}`);
    const body = JSON.parse(String(init?.body)) as MessagesBody;
    const turn = state.turn++;
    this.requests.push({
      step: state.step,
      turn,
      model: body.model,
      system: textOf(body.system),
      prompt: textOf(body.messages.at(-1)?.content),
      tools: (body.tools ?? []).map((tool) => tool.name),
      body,
    });
    const typed = state.step.kind === "session" ? typedAnswerSchema(body.tools) : undefined;
    const content =
      typed !== undefined
        ? typedTurn(state, turn, typed)
        : body.tool_choice?.type === "tool"
          ? [forcedAnswer(state, body)]
          : sessionTurn(state, turn);
    if (typeof content === "string") return failure(content);
    const stop = content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
    const message = {
      id: `msg_scripted_${this.requests.length}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    if (body.stream === true) return streamedAnswer(message);
    return new Response(JSON.stringify(message), { status: 200, headers: { "content-type": "application/json" } });
  }
}

/** The runtime's own step store, with every model-facing step entered in the scripted model's context. */
export class ScriptedDurability implements StepStore {
  constructor(
    private readonly model: ScriptedModel,
    private readonly inner: StepStore,
  ) {}

  step(address: StepAddress, execute: () => Promise<RecordedStep>): Promise<DurableStep> {
    const { kind, ask } = address;
    if (kind === "input" || kind === "finish") return this.inner.step(address, execute);
    const state = this.model.enter({
      kind,
      key: address.site,
      anchor: address.anchor,
      at: address.at,
      program: address.program.name,
      source: address.program.source,
      ...(ask.binding === undefined ? {} : { binding: ask.binding }),
      text: ask.text,
      ...(ask.options === undefined ? {} : { options: ask.options }),
    });
    return this.inner.step(address, () => current.run(state, execute));
  }

  branch<T extends Value>(key: string, body: () => Promise<T>): Promise<T> {
    return this.inner.branch(key, body);
  }

  scope(): string {
    return this.inner.scope();
  }
}

export interface ScriptedRun<O> {
  readonly outputs: O;
  /** Every request made, in the order made. */
  readonly requests: readonly ScriptedRequest[];
  /** The requests made for the steps `key` names. */
  requestsFor(key: string): ScriptedRequest[];
  readonly events: readonly RunEvent[];
  /** Answer keys that no step used. */
  readonly unusedAnswers: readonly string[];
}

/**
 * Runs a compiled program (its module, or anything with its `run`) against a scripted model.
 * Rejects as the run does (a `ProseError` naming the `.prose` line).
 */
export async function runScripted<I, O>(
  program: { run(inputs: I, options?: RunOptions): Promise<O> },
  inputs: I,
  script: Script & ScriptedRunOptions = {},
): Promise<ScriptedRun<O>> {
  const { answers, defaults, strict, ...options } = script;
  const model = new ScriptedModel({
    ...(answers === undefined ? {} : { answers }),
    ...(defaults === undefined ? {} : { defaults }),
    ...(strict === undefined ? {} : { strict }),
  });
  const events: RunEvent[] = [];
  const onEvent = (event: RunEvent): void => {
    events.push(event);
    options.onEvent?.(event);
  };
  const outputs = await program.run(inputs, model.options({ ...options, onEvent }));
  return {
    outputs,
    requests: model.requests,
    requestsFor: (key) => model.requestsFor(key),
    events,
    unusedAnswers: model.unusedAnswers(),
  };
}

interface MessagesBody {
  readonly model: string;
  readonly system?: unknown;
  readonly messages: readonly { readonly role: string; readonly content: unknown }[];
  readonly tools?: readonly {
    readonly name: string;
    readonly input_schema?: {
      readonly properties?: { readonly answer?: { readonly type?: string; readonly enum?: readonly string[] } };
    };
  }[];
  readonly tool_choice?: { readonly type: string; readonly name?: string };
  readonly [key: string]: unknown;
}

type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown };

let toolUseIds = 0;

/** The forced `answer` tool call of a judgment, choice or extraction. */
function forcedAnswer(state: StepState, body: MessagesBody): ContentBlock {
  const schema = body.tools?.find((tool) => tool.name === body.tool_choice?.name)?.input_schema?.properties?.answer;
  const answer = state.answer ?? builtinForced(state.step, schema);
  const judged =
    (state.step.kind === "judge" || state.step.kind === "choose") &&
    typeof answer === "object" &&
    answer !== null &&
    !Array.isArray(answer) &&
    "answer" in answer;
  const input = judged
    ? { reason: "scripted", ...(answer as { readonly [key: string]: Value }) }
    : { answer, reason: "scripted" };
  return { type: "tool_use", id: `toolu_scripted_${++toolUseIds}`, name: body.tool_choice?.name ?? "answer", input };
}

function builtinForced(
  step: ScriptedStep,
  schema: { readonly type?: string; readonly enum?: readonly string[] } | undefined,
): Value {
  if (step.kind === "choose") return schema?.enum?.[0] ?? step.options?.[0] ?? null;
  if (schema?.type === "boolean") return step.kind === "judge";
  return schema?.type === "array" ? [] : null;
}

/**
 * A typed session's reply (`returns:`): its scripted turns when it has them, else its answer through
 * the `answer` tool, the scripted value (text that is not of a string type is replied as text, which
 * the runtime reads as JSON or asks again) or, without one, a value built from the schema.
 */
function typedTurn(
  state: StepState,
  turn: number,
  schema: { readonly [key: string]: unknown },
): ContentBlock[] | string {
  if (turnsOf(state.answer) !== undefined) return sessionTurn(state, turn);
  const answer = state.answer === undefined ? exampleOf(schema) : (state.answer as Value);
  if (typeof answer === "string" && schema["type"] !== "string") return [{ type: "text", text: answer }];
  return [{ type: "tool_use", id: `toolu_scripted_${++toolUseIds}`, name: "answer", input: { answer } }];
}

/** A session's reply for this turn, or why there is none. */
function sessionTurn(state: StepState, turn: number): ContentBlock[] | string {
  const { step } = state;
  const answer = state.answer ?? `scripted reply: ${step.binding ?? step.text.split("\n")[0]}`;
  const scripted = turnsOf(answer);
  if (scripted === undefined)
    return turn === 0
      ? [{ type: "text", text: text(answer as Value) }]
      : `the session at ${step.source}:${step.at.line}:${step.at.column} asked the model again after its one scripted reply`;
  const next = scripted[turn];
  if (next === undefined)
    return `the scripted turns of the session at ${step.source}:${step.at.line}:${step.at.column} ran out after ${scripted.length}: end them with the final reply`;
  if (typeof next === "string") return [{ type: "text", text: next }];
  const calls: readonly ToolCall[] = Array.isArray(next) ? next : [next as ToolCall];
  return calls.map((call) => ({
    type: "tool_use",
    id: `toolu_scripted_${++toolUseIds}`,
    name: call.tool,
    input: call.input,
  }));
}

/** An API error the SDK turns into an exception, with `message` in it. */
function notFound(path: string): Response {
  return new Response(JSON.stringify({ type: "error", error: { type: "not_found_error", message: path } }), {
    status: 404,
    headers: { "content-type": "application/json" },
  });
}

function failure(message: string): Response {
  return new Response(
    JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: `prosec/testing: ${message}` } }),
    { status: 400, headers: { "content-type": "application/json" } },
  );
}

/** Text of a system prompt or message content (a string, or blocks of text and tool results). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type?: string; text?: string; content?: unknown }) =>
      block.type === "text" ? (block.text ?? "") : block.type === "tool_result" ? textOf(block.content) : "",
    )
    .filter((part) => part !== "")
    .join("\n");
}
