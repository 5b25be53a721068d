/**
 * `**condition**` and `choice **criteria**`: the model answers through a forced tool call whose input
 * is `{ answer, reason }` (forced-question.ts, which asks again when the answer cannot be read). A
 * server that ignores `tool_choice` and answers in text is read deterministically (a leading yes/no,
 * an option's label or number).
 */
import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { RunCore, StepOutcome } from "../kernel/core.js";
import { askForced, YES_NO_SCHEMA } from "./forced-question.js";
import { contextSections, dedent, stableBlocks } from "../model/prompt.js";
import { parseYesNo } from "../values/structure.js";
import { trailBudget, trailSections, type TrailEntry } from "../values/trail.js";
import type { JudgmentAsker, Site, Value } from "../types.js";

const SCOPE_BUDGET = 100_000;

const JUDGE_SYSTEM =
  "You decide conditions for an OpenProse program. Judge the condition against the program's values shown. " +
  "Answer by calling the answer tool. When the evidence is unclear, prefer the answer that keeps the program working (for a loop's exit condition: not yet).";

/** The input a yes-or-no question's tool takes, as a re-ask repeats it. */
export const YES_NO_SHAPE = '{"answer": true or false, "reason": "<one sentence>"}';

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
  readonly at: Site;
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
  const question = `Condition: ${dedent(request.condition)}\n\n${ASKERS[request.asks]}\n\nIs the condition true?`;
  return askForced(
    core,
    {
      at: request.at,
      label: "The judgment",
      system: JUDGE_SYSTEM,
      material: evidence(core, request.trail, request.scope),
      question,
      schema: YES_NO_SCHEMA,
      shape: YES_NO_SHAPE,
      expected: "true or false",
      failure: "The model's judgment could not be read as yes or no",
      read: (reply) =>
        typeof reply.answer === "boolean"
          ? reply.answer
          : parseYesNo(typeof reply.answer === "string" ? reply.answer : reply.called ? "" : reply.text),
    },
    signal,
  );
}

export interface ChoiceRequest {
  readonly at: Site;
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
  return askForced(
    core,
    {
      at: request.at,
      label: "The choice",
      system: JUDGE_SYSTEM,
      material: evidence(core, request.trail, request.scope),
      question,
      schema,
      shape: `{"answer": one of ${numbered.map((label) => JSON.stringify(label)).join(", ")}, "reason": "<one sentence>"}`,
      expected: "one of the options",
      failure: `The model's choice names none of the options ${JSON.stringify(numbered)}`,
      read: (reply) =>
        optionIndex(
          options,
          typeof reply.answer === "string" || typeof reply.answer === "number"
            ? String(reply.answer)
            : reply.called
              ? ""
              : reply.text,
        ),
    },
    signal,
  );
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
