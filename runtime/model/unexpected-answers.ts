/**
 * When the model does not answer as asked (docs/model-answers.md): what is wrong with an answer, and
 * the turns the runtime adds to the conversation about it. Each is a turn of its own, named for what
 * it is, so a journal of a conversation's turns can record it as one:
 *
 * - a **re-ask** answers an unreadable forced answer (a judgment's, choice's or extraction's) with a
 *   corrective turn that quotes what was wrong and repeats the one allowed answer shape;
 * - a **continuation** sends a session's answer cut off at `max_tokens` back as the assistant's turn
 *   and asks the model to go on.
 */
import type {
  ContentBlock,
  ContentBlockParam,
  Message,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { AnswerProblem } from "../types.js";
import { tooDeepInput, tooDeepProblem } from "./input-depth.js";

export type { AnswerAction, AnswerProblem } from "../types.js";

/** What was wrong with one answer, in words the model and the user both read. */
export interface UnexpectedAnswer {
  readonly problem: AnswerProblem;
  readonly detail: string;
}

export const DEFAULT_REASKS = 2;
export const DEFAULT_CONTINUATIONS = 3;

const QUOTE_LIMIT = 200;

/** A model's words, shortened and quoted for a message. */
export function quote(text: string): string {
  return JSON.stringify(shorten(text));
}

/** One line of at most 200 characters. */
function shorten(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= QUOTE_LIMIT ? line : `${line.slice(0, QUOTE_LIMIT - 1)}…`;
}

/** The text blocks of a reply, joined as they were written. */
export function replyText(content: readonly ContentBlock[]): string {
  return content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/** The tool calls of a reply. */
export function toolCalls(content: readonly ContentBlock[]): ToolUseBlock[] {
  return content.filter((block): block is ToolUseBlock => block.type === "tool_use");
}

/** "; it said: ..." when a reply said anything in text. */
function saying(message: Message): string {
  const text = replyText(message.content).trim();
  return text === "" ? "" : ` (it said ${quote(text)})`;
}

/** A refusal (`stop_reason: "refusal"`), in words. */
export function refusal(message: Message): UnexpectedAnswer {
  return { problem: "refusal", detail: `the model refused to answer (stop_reason "refusal")${saying(message)}` };
}

/**
 * Why a forced answer (the `answer` tool, `expected` in words) could not be read: a refusal, another
 * tool, cut off, the tool with the wrong input, text instead of the tool, or nothing.
 */
export function unreadable(message: Message, expected: string): UnexpectedAnswer {
  if (message.stop_reason === "refusal") return refusal(message);
  const calls = toolCalls(message.content);
  const answer = calls.find((call) => call.name === ANSWER_TOOL);
  if (answer === undefined && calls.length > 0)
    return {
      problem: "unknown-tool",
      detail: `the model called ${calls.map((call) => `"${call.name}"`).join(", ")}, which is not offered here: the only tool is "${ANSWER_TOOL}"`,
    };
  if (message.stop_reason === "max_tokens")
    return { problem: "max-tokens", detail: `the answer was cut off at max_tokens${saying(message)}` };
  const depth = answer === undefined ? undefined : tooDeepInput(answer.input);
  if (depth !== undefined) return { problem: "shape", detail: tooDeepProblem("answer", depth) };
  if (answer !== undefined)
    return {
      problem: "shape",
      detail: `the "${ANSWER_TOOL}" tool was called with ${shorten(JSON.stringify(answer.input ?? null))}, whose answer is not ${expected}`,
    };
  const text = replyText(message.content).trim();
  if (text !== "")
    return {
      problem: "text",
      detail: `the model answered in text, not with the "${ANSWER_TOOL}" tool: ${quote(text)}`,
    };
  return { problem: "empty", detail: "the answer was empty" };
}

/** The forced tool of every judgment, choice and extraction. */
export const ANSWER_TOOL = "answer";

/**
 * The conversation with a re-ask turn: the unreadable answer as the assistant's turn (each tool call in
 * it answered with an error result), then the corrective turn. An answer with no content cannot be
 * an assistant turn: the corrective text then joins the last user turn.
 */
export function reaskTurn(
  messages: readonly MessageParam[],
  reply: Message,
  wrong: UnexpectedAnswer,
  shape: string,
): MessageParam[] {
  const correction: TextBlockParam = {
    type: "text",
    text: `Your answer could not be read: ${wrong.detail}. Answer again by calling the tool "${ANSWER_TOOL}" with exactly this input: ${shape}`,
  };
  const said = assistantContent(reply.content);
  if (said.length === 0) return withUserText(messages, correction);
  const results: ToolResultBlockParam[] = toolCalls(reply.content).map((call) => ({
    type: "tool_result",
    tool_use_id: call.id,
    is_error: true,
    content: call.name === ANSWER_TOOL ? "This answer could not be read." : `There is no tool "${call.name}" here.`,
  }));
  return [...messages, { role: "assistant", content: said }, { role: "user", content: [...results, correction] }];
}

/**
 * The conversation with a continuation turn: the cut answer's text as the assistant's turn, then the
 * request to go on. A cut tool call is left out (its input is incomplete); an answer with no text
 * cannot be an assistant turn, so the request then joins the last user turn.
 */
export function continuationTurn(messages: readonly MessageParam[], reply: Message): MessageParam[] {
  const text = replyText(reply.content);
  if (text.trim() === "")
    return withUserText(messages, {
      type: "text",
      text: "Your answer was cut off at the output limit before any text. Answer again, more briefly.",
    });
  return [
    ...messages,
    { role: "assistant", content: [{ type: "text", text }] },
    {
      role: "user",
      content: [
        {
          type: "text",
          text: "Your answer was cut off at the output limit. Continue it exactly where it stopped, without repeating anything.",
        },
      ],
    },
  ];
}

/** A reply's content as an assistant turn: without empty text blocks, which the API refuses. */
function assistantContent(content: readonly ContentBlock[]): ContentBlockParam[] {
  return content.filter((block) => block.type !== "text" || block.text.trim() !== "") as ContentBlockParam[];
}

function withUserText(messages: readonly MessageParam[], text: TextBlockParam): MessageParam[] {
  const last = messages.at(-1);
  if (last?.role !== "user") return [...messages, { role: "user", content: [text] }];
  const content = typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
  return [...messages.slice(0, -1), { role: "user", content: [...content, text] }];
}

/** Whether a session's answer still cut off is kept as it is, and the ways out its failure names. */
export interface CutText {
  readonly kept: boolean;
  /** After the continuations ran out. */
  readonly raise: string;
  /** When the conversation reached the context window. */
  readonly otherwise: string;
}

/**
 * `onTruncation: "keep"` keeps a session's cut text as its answer; cut text is no value of a
 * `returns:` type (generated code declares the session's result as that type), so a typed session
 * never keeps it: it fails.
 */
export function cutTextKept(onTruncation: "fail" | "keep" | undefined, typed: boolean): CutText {
  if (typed) {
    const never = "a session with `returns:` never keeps cut text as its answer (--on-truncation keep).";
    return {
      kept: false,
      raise: `Raise --max-tokens (RunOptions.maxTokens): ${never}`,
      otherwise: `${never.charAt(0).toUpperCase()}${never.slice(1)}`,
    };
  }
  return {
    kept: onTruncation === "keep",
    raise: "Raise --max-tokens (RunOptions.maxTokens), or keep the text cut off with --on-truncation keep.",
    otherwise: "Keep the text cut off with --on-truncation keep.",
  };
}
