/**
 * `**condition**` and `choice **criteria**`: the model answers through a forced tool call
 * (`tool_choice: { type: "tool" }`) whose input is `{ answer, reason }`. A server that ignores
 * `tool_choice` and answers in text is read deterministically (a leading yes/no, an option's label
 * or number); an answer that cannot be read is an error.
 */
import type { Tool } from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { RunCore, StepOutcome } from "./core.js";
import { dedent, serializeContext } from "./prompt.js";
import { parseYesNo } from "./structure.js";
import type { Value } from "./types.js";

const JUDGE_MAX_TOKENS = 1024;
const SCOPE_BUDGET = 100_000;

const JUDGE_SYSTEM =
  "You decide conditions for an OpenProse program. Judge the condition against the program's values shown. " +
  "Answer by calling the answer tool. When the evidence is unclear, prefer the answer that keeps the program working (for a loop's exit condition: not yet).";

export interface ForcedAnswer {
  /** The tool's `answer` field, or undefined when the model answered in text. */
  readonly answer: unknown;
  readonly reason: string;
  /** The text reply, for the fallback. */
  readonly text: string;
}

/** Asks one question through a forced tool call. */
export async function askForced(
  core: RunCore,
  question: string,
  schema: Tool["input_schema"],
  signal: AbortSignal,
  system = JUDGE_SYSTEM,
): Promise<{ reply: ForcedAnswer; usage: StepOutcome<Value>["usage"] }> {
  const model = core.model(undefined);
  const { message, usage } = await core.callModel(
    {
      model,
      max_tokens: JUDGE_MAX_TOKENS,
      system,
      messages: [{ role: "user", content: question }],
      tools: [{ name: "answer", description: "Give your answer and a one-sentence reason.", input_schema: schema }],
      tool_choice: { type: "tool", name: "answer" },
    },
    signal,
  );
  const call = message.content.find((block) => block.type === "tool_use" && block.name === "answer");
  const text = message.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("\n")
    .trim();
  if (call !== undefined && call.type === "tool_use") {
    const input = (call.input ?? {}) as Record<string, unknown>;
    return {
      reply: { answer: input["answer"], reason: typeof input["reason"] === "string" ? input["reason"] : "", text },
      usage: [usage],
    };
  }
  return { reply: { answer: undefined, reason: text, text }, usage: [usage] };
}

export function judgmentQuestion(condition: string, scope: { readonly [name: string]: Value }): string {
  const values = serializeContext(scope, SCOPE_BUDGET);
  return `Condition: ${dedent(condition)}\n\nIs the condition true?${values === "" ? "" : `\n\n${values}`}`;
}

export async function judge(
  core: RunCore,
  condition: string,
  scope: { readonly [name: string]: Value },
  signal: AbortSignal,
): Promise<StepOutcome<boolean>> {
  const schema = {
    type: "object" as const,
    properties: { answer: { type: "boolean" }, reason: { type: "string" } },
    required: ["answer", "reason"],
  };
  const { reply, usage } = await askForced(core, judgmentQuestion(condition, scope), schema, signal);
  const answer =
    typeof reply.answer === "boolean"
      ? reply.answer
      : parseYesNo(typeof reply.answer === "string" ? reply.answer : reply.text);
  if (answer === undefined)
    throw new Error(`The model's judgment could not be read as yes or no: ${JSON.stringify(reply.text.slice(0, 200))}`);
  return { value: answer, reason: reply.reason, usage };
}

export async function choose(
  core: RunCore,
  criteria: string,
  options: readonly string[],
  scope: { readonly [name: string]: Value },
  signal: AbortSignal,
): Promise<StepOutcome<number>> {
  const values = serializeContext(scope, SCOPE_BUDGET);
  const listed = options.map((option, index) => `${index + 1}. ${option}`).join("\n");
  const question = `Choose the option that best fits: ${dedent(criteria)}\n\nOptions:\n${listed}${values === "" ? "" : `\n\n${values}`}`;
  const schema = {
    type: "object" as const,
    properties: { answer: { type: "string", enum: [...options] }, reason: { type: "string" } },
    required: ["answer", "reason"],
  };
  const { reply, usage } = await askForced(core, question, schema, signal);
  const index = optionIndex(
    options,
    typeof reply.answer === "string" || typeof reply.answer === "number" ? String(reply.answer) : reply.text,
  );
  if (index === undefined)
    throw new Error(
      `The model's choice names none of the options ${JSON.stringify(options)}: ${JSON.stringify(reply.text.slice(0, 200))}`,
    );
  return { value: index, reason: reply.reason, usage };
}

/** The option an answer names: exactly, then ignoring case, then by its 1-based number, then the earliest label in the text. */
export function optionIndex(options: readonly string[], answer: string): number | undefined {
  const trimmed = answer.trim().replace(/^["'*`]+|["'*`.]+$/g, "");
  const exact = options.indexOf(trimmed);
  if (exact >= 0) return exact;
  const lower = trimmed.toLowerCase();
  const caseless = options.findIndex((option) => option.toLowerCase() === lower);
  if (caseless >= 0) return caseless;
  const number = /^(?:option\s*)?(\d+)\b/i.exec(trimmed);
  if (number !== null && Number(number[1]) >= 1 && Number(number[1]) <= options.length) return Number(number[1]) - 1;
  let best: { index: number; position: number; length: number } | undefined;
  options.forEach((option, index) => {
    const position = lower.indexOf(option.toLowerCase());
    if (
      position >= 0 &&
      (best === undefined || position < best.position || (position === best.position && option.length > best.length))
    )
      best = { index, position, length: option.length };
  });
  return best?.index;
}
