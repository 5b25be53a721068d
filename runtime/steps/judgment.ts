/**
 * `**condition**` and `choice **criteria**`: the model answers through a forced tool call
 * (`tool_choice: { type: "tool" }`) whose input is `{ answer, reason }`. A server that ignores
 * `tool_choice` and answers in text is read deterministically (a leading yes/no, an option's label
 * or number); an answer that cannot be read is an error.
 */
import type { TextBlockParam, Tool } from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { RunCore, StepOutcome } from "../run/core.js";
import { contextSections, dedent, stableBlocks } from "../model/prompt.js";
import { parseYesNo } from "../values/structure.js";
import { trailBudget, trailSections, type TrailEntry } from "./trail.js";
import type { JudgmentAsker, Value } from "../types.js";

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

/**
 * Asks one question through a forced tool call. `material` (the values or text the question is about)
 * goes first, in blocks of its own, so that questions about the same material share a cached prefix.
 */
export async function askForced(
  core: RunCore,
  question: string,
  material: readonly TextBlockParam[],
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
      messages: [
        {
          role: "user",
          content:
            material.length === 0 ? question : [...material, { type: "text", text: question } satisfies TextBlockParam],
        },
      ],
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

/** What the answer does, for each construct that asks: "prefer continuing" differs for `until` and `while`. */
const ASKERS: Record<JudgmentAsker, string> = {
  if: "An `if` asks: when the condition is true, the program runs the branch under it.",
  elif: "An `elif` asks (the conditions before it were false): when the condition is true, the program runs the branch under it.",
  until:
    "A `loop until` asks: true ends the loop, false runs another iteration. When the evidence is unclear, answer false (keep going).",
  while:
    "A `loop while` asks: true runs another iteration, false ends the loop. When the evidence is unclear, answer true (keep going).",
  assert: "An `assert` asks: false stops the program with an error.",
  condition: "The program uses the answer as a yes-or-no value.",
};

export interface JudgmentRequest {
  readonly condition: string;
  readonly asks: JudgmentAsker;
  readonly scope: { readonly [name: string]: Value };
  readonly trail: readonly TrailEntry[];
}

/**
 * What a judgment or choice is shown before its question, in blocks: the trail (a growing prefix),
 * then the named values; each part's last block a breakpoint (caching.ts).
 */
function evidence(
  core: RunCore,
  trail: readonly TrailEntry[],
  scope: { readonly [name: string]: Value },
): TextBlockParam[] {
  return [
    ...stableBlocks(trailSections(trail, trailBudget(core))),
    ...stableBlocks(contextSections(scope, SCOPE_BUDGET)),
  ];
}

export async function judge(
  core: RunCore,
  request: JudgmentRequest,
  signal: AbortSignal,
): Promise<StepOutcome<boolean>> {
  const schema = {
    type: "object" as const,
    properties: { answer: { type: "boolean" }, reason: { type: "string" } },
    required: ["answer", "reason"],
  };
  const question = `Condition: ${dedent(request.condition)}\n\n${ASKERS[request.asks]}\n\nIs the condition true?`;
  const { reply, usage } = await askForced(
    core,
    question,
    evidence(core, request.trail, request.scope),
    schema,
    signal,
  );
  const answer =
    typeof reply.answer === "boolean"
      ? reply.answer
      : parseYesNo(typeof reply.answer === "string" ? reply.answer : reply.text);
  if (answer === undefined)
    throw new Error(`The model's judgment could not be read as yes or no: ${JSON.stringify(quoted(reply))}`);
  return { value: answer, reason: reply.reason, usage };
}

export interface ChoiceRequest {
  readonly criteria: string;
  readonly options: readonly string[];
  readonly scope: { readonly [name: string]: Value };
  readonly trail: readonly TrailEntry[];
}

/** The options as the forced tool's enum: numbered, so equal labels stay distinct and any label text is choosable. */
export function numberedOptions(options: readonly string[]): string[] {
  return options.map((option, index) => `${index + 1}. ${option}`);
}

export async function choose(core: RunCore, request: ChoiceRequest, signal: AbortSignal): Promise<StepOutcome<number>> {
  const { options } = request;
  const numbered = numberedOptions(options);
  const question = `Choose the option that best fits: ${dedent(request.criteria)}\n\nOptions:\n${numbered.join("\n")}`;
  const schema = {
    type: "object" as const,
    properties: { answer: { type: "string", enum: numbered }, reason: { type: "string" } },
    required: ["answer", "reason"],
  };
  const { reply, usage } = await askForced(
    core,
    question,
    evidence(core, request.trail, request.scope),
    schema,
    signal,
  );
  const index = optionIndex(
    options,
    typeof reply.answer === "string" || typeof reply.answer === "number" ? String(reply.answer) : reply.text,
  );
  if (index === undefined)
    throw new Error(
      `The model's choice names none of the options ${JSON.stringify(numbered)}: ${JSON.stringify(quoted(reply))}`,
    );
  return { value: index, reason: reply.reason, usage };
}

/** What the model really replied, for an error: the tool answer when it gave one, else its text. */
function quoted(reply: ForcedAnswer): string {
  const said =
    reply.answer === undefined
      ? reply.text
      : typeof reply.answer === "string"
        ? reply.answer
        : JSON.stringify(reply.answer);
  return said.slice(0, 200);
}

/**
 * The option an answer names: a numbered label (`"2. Ship it."`) or its number selects; else a
 * label matched exactly, then after normalising both sides (case, surrounding quotes, backticks and
 * asterisks, trailing punctuation); else the earliest label the text mentions.
 */
export function optionIndex(options: readonly string[], answer: string): number | undefined {
  const trimmed = answer.trim();
  const exact = options.indexOf(trimmed);
  if (exact >= 0) return exact;
  const numbered = numberedOptions(options).indexOf(trimmed);
  if (numbered >= 0) return numbered;
  const number = /^(?:option\s*)?(\d+)(?:[.):]|$)/i.exec(trimmed);
  if (number !== null && Number(number[1]) >= 1 && Number(number[1]) <= options.length) return Number(number[1]) - 1;
  const wanted = normalise(trimmed);
  const normalised = options.findIndex((option) => normalise(option) === wanted);
  if (normalised >= 0) return normalised;
  const lower = trimmed.toLowerCase();
  let best: { index: number; position: number; length: number } | undefined;
  options.forEach((option, index) => {
    const label = normalise(option);
    const position = label === "" ? -1 : lower.indexOf(label);
    if (
      position >= 0 &&
      (best === undefined || position < best.position || (position === best.position && label.length > best.length))
    )
      best = { index, position, length: label.length };
  });
  return best?.index;
}

/** Case, surrounding quotes/backticks/asterisks and trailing punctuation do not tell labels apart. */
function normalise(label: string): string {
  let result = label.trim().toLowerCase();
  for (let previous = ""; previous !== result;) {
    previous = result;
    result = result
      .replace(/^["'`*]+|["'`*]+$/g, "")
      .replace(/[.!?,;:]+$/, "")
      .trim();
  }
  return result;
}
