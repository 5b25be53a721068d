/**
 * A typed session's answer (`returns:`, DIALECT.md "Typed results"): the `answer` tool whose input
 * is `{ "answer": T }`, the check of what the model gave against T's JSON Schema, and the turns that
 * ask again. The validator is ajv 8, loaded the first time a run checks a typed answer (a run
 * without `returns:` never loads it) and compiled once per schema: the schemas are small and fixed
 * per program, so compiling at run time costs well under a millisecond, and generated modules stay
 * plain data instead of carrying validator code.
 */
import type {
  Message,
  MessageParam,
  Tool,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { AnswerFailure } from "../errors.js";
import { ANSWER_TOOL, DEFAULT_REASKS, quote, replyText, toolCalls } from "../model/unexpected-answers.js";
import type { RunCore } from "../kernel/core.js";
import { tooDeepInput, tooDeepProblem } from "../model/input-depth.js";
import { parseJson } from "../values/structure.js";
import type { ResultSchema, Site, Value } from "../types.js";

/** The `answer` tool of a typed session. */
export function answerTool(schema: ResultSchema): Tool {
  return {
    name: ANSWER_TOOL,
    description:
      "Give the session's result: call this once you have finished the task, with the result as `answer`, matching the schema exactly. It ends the session.",
    input_schema: answerInputSchema(schema),
  };
}

/** `{ answer: T }`, nothing else: the Messages API takes only an object schema as a tool's input. */
export function answerInputSchema(schema: ResultSchema): Tool["input_schema"] {
  return { type: "object", properties: { answer: schema }, required: ["answer"], additionalProperties: false };
}

export type Checked =
  { readonly valid: true; readonly value: Value } | { readonly valid: false; readonly errors: string };

type AjvModule = typeof import("ajv");
let ajvLoading: Promise<InstanceType<AjvModule["default"]>> | undefined;
const compiled = new Map<string, ValidateFunction>();

async function validator(schema: ResultSchema): Promise<ValidateFunction> {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known !== undefined) return known;
  ajvLoading ??= import("ajv").then((module) => {
    const Ajv = module.default as unknown as AjvModule["default"];
    // Own properties only: an answer is JSON, which has no prototype. By default ajv reads `toString`
    // or `constructor` through Object.prototype, so an optional field of that name could never be
    // left out, and a required one left out was "must be string", not missing.
    return new Ajv({ allErrors: true, strict: true, ownProperties: true });
  });
  const ajv = await ajvLoading;
  const validate = ajv.compile(answerInputSchema(schema));
  compiled.set(key, validate);
  return validate;
}

/** Checks a tool input `{ answer: ... }` against the session's type. */
export async function checkAnswer(schema: ResultSchema, input: unknown): Promise<Checked> {
  const validate = await validator(schema);
  if (validate(input)) return { valid: true, value: (input as { answer: Value }).answer };
  return { valid: false, errors: describeErrors(validate.errors ?? []) };
}

/** Validation errors as one line each, by where in the answer they are: `answer[0].severity must be equal to one of ...`. */
function describeErrors(errors: readonly ErrorObject[]): string {
  const lines = errors.slice(0, 8).map((error) => {
    const where = error.instancePath
      .split("/")
      .slice(1)
      .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part.replaceAll("~1", "/").replaceAll("~0", "~")}`))
      .join("")
      .replace(/^\./, "");
    const detail =
      error.keyword === "additionalProperties"
        ? `has the key ${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)}, which the type does not declare`
        : error.keyword === "enum"
          ? `must be one of ${((error.params as { allowedValues: unknown[] }).allowedValues ?? []).map((each) => JSON.stringify(each)).join(", ")}`
          : error.keyword === "const"
            ? `must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`
            : (error.message ?? error.keyword);
    return `${where === "" ? "the input" : where} ${detail}`;
  });
  const more = errors.length > 8 ? `; and ${errors.length - 8} more` : "";
  return lines.join("; ") + more;
}

/**
 * The conversation with a corrective turn after a wrong answer: the reply as the assistant's turn,
 * each of its tool calls answered (the `answer` with what failed; any other is not run, since the
 * answer ends the session), then the request to answer again.
 */
export function correctionTurn(messages: readonly MessageParam[], reply: Message, problem: string): MessageParam[] {
  const correction = {
    type: "text" as const,
    text: `Your answer does not match the required type: ${problem}. Call the tool "${ANSWER_TOOL}" again with {"answer": <your result>}, the result matching the tool's schema exactly (no other keys; leave an optional key out rather than null).`,
  };
  const said = reply.content.filter((block) => block.type !== "text" || block.text.trim() !== "");
  if (said.length === 0) return withUserTurn(messages, correction);
  const results: ToolResultBlockParam[] = toolCalls(reply.content).map((call) => ({
    type: "tool_result",
    tool_use_id: call.id,
    is_error: true,
    content:
      call.name === ANSWER_TOOL
        ? `This answer does not match the required type: ${problem}.`
        : "Not run: an answer ends the session.",
  }));
  return [
    ...messages,
    { role: "assistant", content: said as MessageParam["content"] },
    { role: "user", content: [...results, correction] },
  ];
}

/** The conversation after a session ended in text: that text, then the request for the `answer` tool. */
export function answerRequestTurn(messages: readonly MessageParam[], reply: Message): MessageParam[] {
  const request = {
    type: "text" as const,
    text: `Now give your result by calling the tool "${ANSWER_TOOL}" with {"answer": <your result>}, matching its schema exactly.`,
  };
  const text = replyText(reply.content);
  if (text.trim() === "") return withUserTurn(messages, request);
  return [...messages, { role: "assistant", content: [{ type: "text", text }] }, { role: "user", content: [request] }];
}

/** What a wrong answer was, for the step's problems and the error that quotes every answer. */
export function quotedAnswer(reply: Message): string {
  const call = toolCalls(reply.content).find((block) => block.name === ANSWER_TOOL);
  const depth = call === undefined ? undefined : tooDeepInput(call.input);
  if (depth !== undefined) return "an input too deep to quote";
  if (call !== undefined) return quote(JSON.stringify(call.input ?? null));
  const text = replyText(reply.content).trim();
  return text === "" ? "nothing" : `text ${quote(text)}`;
}

function withUserTurn(messages: readonly MessageParam[], text: { type: "text"; text: string }): MessageParam[] {
  const last = messages.at(-1);
  if (last?.role !== "user") return [...messages, { role: "user", content: [text] }];
  const content = typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
  return [...messages.slice(0, -1), { role: "user", content: [...content, text] }];
}

type TypedReply =
  | { readonly kind: "answer"; readonly value: Value }
  | { readonly kind: "wrong"; readonly problem: string }
  | { readonly kind: "ask-for-answer" }
  /** Tool calls (without `answer`), or an answer in text being continued: the session goes on as any other. */
  | { readonly kind: "go-on" };

/**
 * What a typed session's reply is: its `answer` (which wins over other tool calls in the same reply),
 * valid or not; text ending the session, which is read as the answer when it is JSON of the type (a
 * server that ignores `tool_choice`), else asked for once with a forced request if the answer was not
 * forced yet, else wrong; or tool calls to run.
 */
async function typedReply(message: Message, returns: ResultSchema, forced: boolean): Promise<TypedReply> {
  const calls = toolCalls(message.content);
  const call = calls.find((each) => each.name === ANSWER_TOOL);
  if (call !== undefined) {
    if (message.stop_reason === "max_tokens")
      return { kind: "wrong", problem: "the answer was cut off at max_tokens before its input was complete" };
    const depth = tooDeepInput(call.input);
    if (depth !== undefined) return { kind: "wrong", problem: tooDeepProblem("answer", depth) };
    const checked = await checkAnswer(returns, call.input ?? null);
    return checked.valid ? { kind: "answer", value: checked.value } : { kind: "wrong", problem: checked.errors };
  }
  if (message.stop_reason === "tool_use" && calls.length > 0) return { kind: "go-on" };
  if (
    message.stop_reason === "max_tokens" ||
    message.stop_reason === "refusal" ||
    message.stop_reason === "model_context_window_exceeded"
  )
    return { kind: "go-on" };
  const text = replyText(message.content);
  const json = parseJson(text);
  if (json !== undefined) {
    const checked = await checkAnswer(returns, { answer: json });
    if (checked.valid) return { kind: "answer", value: checked.value };
  }
  if (!forced) return { kind: "ask-for-answer" };
  return {
    kind: "wrong",
    problem: `the model answered in text, not with the "${ANSWER_TOOL}" tool`,
  };
}

/** The error of a typed session that never answered right, quoting every answer. */
function typedFailure(wrongAnswers: readonly string[], reasks: number): string {
  const answers = wrongAnswers.length === 1 ? "1 answer" : `${wrongAnswers.length} answers`;
  const asked = reasks === 0 ? "once" : `again ${reasks === 1 ? "once" : `${reasks} times`}`;
  return (
    `The model's answer did not match the session's \`returns:\` type after ${answers}: ${wrongAnswers.join("; ")}. ` +
    `It was asked ${asked} (--reasks, RunOptions.reasks).`
  );
}

/**
 * A typed session's answers as they come: the valid one ends the session; text with tools offered is
 * followed by one forced request for the answer; a wrong one is re-asked with what failed, up to
 * `RunOptions.reasks` times, each an `unexpected-answer` event and a problem in the step's record (as
 * a judgment's are), then the step fails quoting every answer.
 */
export class TypedAnswers {
  /** The wrong answers so far, quoted. */
  readonly wrong: string[] = [];
  private readonly reasks: number;

  constructor(
    private readonly core: RunCore,
    private readonly schema: ResultSchema,
    private readonly at: Site,
    private readonly label: string,
    private readonly problems: string[],
  ) {
    this.reasks = core.options.reasks ?? DEFAULT_REASKS;
  }

  get reasked(): boolean {
    return this.wrong.length > 0;
  }

  /** The answer; or the conversation to send next, forced to `answer`; or undefined: tool calls to run. */
  async read(
    message: Message,
    messages: readonly MessageParam[],
    forced: boolean,
  ): Promise<{ kind: "answer"; value: Value } | { kind: "ask"; messages: MessageParam[] } | undefined> {
    const reply = await typedReply(message, this.schema, forced);
    if (reply.kind === "answer") return reply;
    if (reply.kind === "ask-for-answer") return { kind: "ask", messages: answerRequestTurn(messages, message) };
    if (reply.kind === "go-on") return undefined;
    const attempt = this.wrong.length + 1;
    this.wrong.push(`answer ${attempt}: ${quotedAnswer(message)} (${reply.problem})`);
    this.problems.push(`answer ${attempt}: ${reply.problem}`);
    const last = attempt > this.reasks;
    this.core.emit({
      type: "unexpected-answer",
      at: this.at,
      label: this.label,
      problem:
        message.stop_reason === "max_tokens"
          ? "max-tokens"
          : toolCalls(message.content).length === 0
            ? "text"
            : "shape",
      action: last ? "fail" : "reask",
      attempt,
      detail: this.core.redact(reply.problem),
    });
    // An answer that failed validation, as a judgment's is: a caught failure says so (its cause).
    if (last) throw new AnswerFailure("invalid-answer", typedFailure(this.wrong, this.reasks));
    return { kind: "ask", messages: correctionTurn(messages, message, reply.problem) };
  }
}
