/**
 * What a request to the fake Messages API is, from its body alone: a session's turn, a judgment, a
 * choice or an extraction, and the parts the scripted models answer from. Imports nothing but the
 * fake server's helpers, so the benchmarks can load it transpiled.
 */
import { askedText, systemText, type FakeRequest } from "./fake-anthropic.js";

export type CallKind = "session" | "judgment" | "choice" | "extraction";

/**
 * What a request is, from its body alone: no `tool_choice` is a session's turn; a forced `answer`
 * tool is a choice when its answer is an enum, an extraction when its system prompt is the extraction
 * one or its answer is a list or an untyped value, and otherwise (a boolean) a judgment.
 */
export function callKind(request: FakeRequest): CallKind {
  const body = request.body;
  if (body?.tool_choice === undefined) return "session";
  const tool = body.tools?.find((candidate) => candidate.name === body.tool_choice?.name);
  const input = tool?.input_schema as
    { properties?: { answer?: { type?: string; enum?: unknown[] } }; additionalProperties?: unknown } | undefined;
  // A typed session's answer (`returns:`), asked for with a forced request: its input admits no other key.
  if (input?.additionalProperties === false) return "session";
  const answer = input?.properties?.answer;
  if (answer?.enum !== undefined) return "choice";
  if (systemText(request).startsWith("You extract structure") || answer?.type !== "boolean") return "extraction";
  return "judgment";
}

/** The opening of a re-ask's corrective text (runtime/model-answers.ts), and of a typed session's (typed-answer.ts). */
export const CORRECTION_OPENING = "Your answer could not be read: ";
export const TYPED_CORRECTION_OPENING = "Your answer does not match the required type: ";

/** How many corrective turns a forced question's request carries: 0 for its first ask. */
export function reasksIn(request: FakeRequest): number {
  if (request.body?.tool_choice === undefined) return 0;
  let count = 0;
  for (const message of request.body.messages)
    if (message.role === "user" && typeof message.content !== "string")
      for (const block of message.content)
        if (
          typeof block["text"] === "string" &&
          (block["text"].startsWith(CORRECTION_OPENING) || block["text"].startsWith(TYPED_CORRECTION_OPENING))
        )
          count++;
  return count;
}

/**
 * A re-ask as its first ask was: the first user message alone, without a corrective text joined to
 * it (what a scripted model answers from).
 */
export function asFirstAsk(request: FakeRequest): FakeRequest {
  const body = request.body;
  if (body === undefined) return request;
  const first = body.messages[0]!;
  const content =
    typeof first.content === "string"
      ? first.content
      : first.content.filter(
          (block) => !(typeof block["text"] === "string" && block["text"].startsWith(CORRECTION_OPENING)),
        );
  return { ...request, body: { ...body, messages: [{ ...first, content }] } };
}

/** The condition of a judgment question (`Condition: ...\n\n<what the construct does>\n\nIs the condition true?`). */
export function judgmentCondition(request: FakeRequest): string {
  const question = askedText(request);
  const match = /(?:^|\n\n)Condition: ([\s\S]*?)\n\n[^\n]*\n\nIs the condition true\?$/.exec(question);
  return match === null ? question : match[1]!;
}

/** The criteria of a choice question (`Choose the option that best fits: ...\n\nOptions:`). */
export function choiceCriteria(request: FakeRequest): string {
  const question = askedText(request);
  const match = /(?:^|\n\n)Choose the option that best fits: ([\s\S]*?)\n\nOptions:/.exec(question);
  return match === null ? question : match[1]!;
}

/** The field names an extraction of several fields asks for (its answer is a record), else undefined. */
export function fieldsAsked(request: FakeRequest): string[] | undefined {
  const tool = request.body?.tools?.find((candidate) => candidate.name === "answer");
  const answer = (
    tool?.input_schema as { properties?: { answer?: { type?: string; properties?: object } } } | undefined
  )?.properties?.answer;
  return answer?.type === "object" && answer.properties !== undefined ? Object.keys(answer.properties) : undefined;
}

/** The answers a choice's forced tool allows: its options as numbered labels (`1. Ship it.`). */
export function choiceEnum(request: FakeRequest): string[] {
  const tool = request.body?.tools?.find((candidate) => candidate.name === "answer");
  return [...((tool?.input_schema as { properties: { answer: { enum: string[] } } }).properties.answer.enum ?? [])];
}

/** The option labels a choice offers, without their numbers. */
export function choiceOptions(request: FakeRequest): string[] {
  return choiceEnum(request).map((label) => label.replace(/^\d+\. /, ""));
}

/** What separates a session's trail from its task (runtime/prompt.ts). */
export const TASK_HEADING = "## Your task";

/**
 * The task of a session: the last text block of its first user message (memory, context and the trail
 * come before it), without the heading that follows a trail.
 */
export function firstUserText(request: FakeRequest): string {
  const first = request.body?.messages.find((message) => message.role === "user");
  if (first === undefined) return "";
  if (typeof first.content === "string") return first.content;
  const texts = first.content.filter((block) => typeof block["text"] === "string");
  const task = String(texts[texts.length - 1]?.["text"] ?? "");
  return task.startsWith(`${TASK_HEADING}\n\n`) ? task.slice(TASK_HEADING.length + 2) : task;
}

/** A session's whole first user message, its blocks' texts joined as sections. */
export function firstMessageText(request: FakeRequest): string {
  const first = request.body?.messages.find((message) => message.role === "user");
  if (first === undefined) return "";
  if (typeof first.content === "string") return first.content;
  return first.content.map((block) => (typeof block["text"] === "string" ? block["text"] : "")).join("\n\n");
}
