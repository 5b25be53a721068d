/**
 * One question a judgment, choice or extraction puts to the model, answered through a forced tool
 * call (`tool_choice: { type: "tool" }`). An answer that cannot be read is asked again, up to
 * `RunOptions.reasks` more times (model-answers.ts: a re-ask turn); then the step fails, quoting
 * every answer.
 */
import type { MessageParam, TextBlockParam, Tool } from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { RunCore, StepOutcome } from "../kernel/core.js";
import {
  ANSWER_TOOL,
  DEFAULT_REASKS,
  replyText,
  toolCalls,
  unreadable,
  reaskTurn,
} from "../model/unexpected-answers.js";
import type { Site, Usage, Value } from "../types.js";
import { AnswerFailure } from "../errors.js";

const QUESTION_MAX_TOKENS = 1024;
/** A re-ask after an answer cut off at max_tokens doubles it, up to this. */
const QUESTION_MAX_TOKENS_CAP = 8192;

/** What the model answered: the tool's fields, or its text when it did not call the tool. */
/** The answer tool's input for a yes/no question: a judgment's, or a truth read from text. */
export const YES_NO_SCHEMA = {
  type: "object" as const,
  properties: { answer: { type: "boolean" }, reason: { type: "string" } },
  required: ["answer", "reason"],
};

export interface ForcedReply {
  /** The tool's `answer` field; undefined when the model did not call the tool (or left it out). */
  readonly answer: unknown;
  readonly called: boolean;
  readonly reason: string;
  readonly text: string;
}

export interface ForcedQuestion<T> {
  /** Where the program asks it, for events. */
  readonly at: Site;
  /** How events and errors name the step: "The judgment", "Reading a list". */
  readonly label: string;
  readonly system: string;
  /** The values or text the question is about: first, in blocks of their own, so questions share a cached prefix. */
  readonly material: readonly TextBlockParam[];
  readonly question: string;
  readonly schema: Tool["input_schema"];
  /** The one allowed input of the tool, as a re-ask repeats it: `{"answer": true or false, ...}`. */
  readonly shape: string;
  /** The answer in words, for "whose answer is not ...": "true or false". */
  readonly expected: string;
  /** The error's first words when no answer could be read: "The model's judgment could not be read as yes or no". */
  readonly failure: string;
  /** The answer read from a reply; undefined when it cannot be read. */
  readonly read: (reply: ForcedReply) => T | undefined;
}

export async function askForced<T extends Value>(
  core: RunCore,
  question: ForcedQuestion<T>,
  signal: AbortSignal,
): Promise<StepOutcome<T>> {
  const reasks = core.options.reasks ?? DEFAULT_REASKS;
  const { material } = question;
  let messages: MessageParam[] = [
    {
      role: "user",
      content:
        material.length === 0
          ? question.question
          : [...material, { type: "text", text: question.question } satisfies TextBlockParam],
    },
  ];
  const usage: Usage[] = [];
  const problems: string[] = [];
  let maxTokens = QUESTION_MAX_TOKENS;
  for (let attempt = 1; ; attempt++) {
    const { message, usage: callUsage } = await core.callModel(
      {
        model: core.model(undefined),
        max_tokens: maxTokens,
        system: question.system,
        messages,
        tools: [
          {
            name: ANSWER_TOOL,
            description: "Give your answer and a one-sentence reason.",
            input_schema: question.schema,
          },
        ],
        tool_choice: { type: "tool", name: ANSWER_TOOL },
      },
      signal,
      { at: question.at, label: question.label },
    );
    usage.push(callUsage);
    const reply = forcedReply(message.content);
    const value = message.stop_reason === "refusal" ? undefined : question.read(reply);
    if (value !== undefined)
      return {
        value,
        reason: reply.reason,
        usage,
        ...(attempt === 1 ? {} : { attempts: attempt, problems }),
      };
    const wrong = unreadable(message, question.expected);
    problems.push(`answer ${attempt}: ${wrong.detail}`);
    const last = attempt > reasks;
    core.emit({
      type: "unexpected-answer",
      at: question.at,
      label: question.label,
      problem: wrong.problem,
      action: last ? "fail" : "reask",
      attempt,
      detail: core.redact(wrong.detail),
    });
    if (last)
      throw new AnswerFailure(
        wrong.problem === "refusal" ? "refusal" : "invalid-answer",
        `${question.failure} after ${attempt === 1 ? "1 answer" : `${attempt} answers`}: ${problems.join("; ")}. ` +
          `It was asked ${reasks === 0 ? "once" : `again ${reasks === 1 ? "once" : `${reasks} times`}`} (--reasks, RunOptions.reasks).`,
      );
    messages = reaskTurn(messages, message, wrong, question.shape);
    if (wrong.problem === "max-tokens") maxTokens = Math.min(maxTokens * 2, QUESTION_MAX_TOKENS_CAP);
  }
}

/** A reply's `answer` tool call, or its text when it did not call the tool. */
function forcedReply(content: Parameters<typeof toolCalls>[0]): ForcedReply {
  const call = toolCalls(content).find((block) => block.name === ANSWER_TOOL);
  const text = replyText(content).trim();
  if (call === undefined) return { answer: undefined, called: false, reason: text, text };
  const input = (call.input ?? {}) as Record<string, unknown>;
  return {
    answer: input["answer"],
    called: true,
    reason: typeof input["reason"] === "string" ? input["reason"] : "",
    text,
  };
}
