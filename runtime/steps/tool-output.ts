/**
 * Bounds on what tools hand back to a session's model, so a hostile or careless model cannot take the
 * process's memory with tool output (200 reads of a 200 KB file per turn, turn after turn):
 *
 * - at most `callsPerTurn` tool calls of one turn run; each call beyond gets an error result (the API
 *   wants one result per call) telling the model to ask again in a later turn;
 * - one result keeps at most `resultChars` characters, cut with a marker that gives the full size (an
 *   image counts its base64 characters; one that does not fit is replaced by a line saying so);
 * - the conversation keeps at most `conversationChars` characters of tool results: past that, the
 *   oldest results are elided (`elideToolResults`), down to half the limit, so the conversation's
 *   prefix changes once per half a limit of new output rather than every turn (a changed prefix is
 *   a prompt-cache miss from that point on).
 *
 * Eliding is a pure function of the conversation: run on the same messages, it elides the same
 * results, so a session rebuilt turn by turn from a journal comes out the same.
 */
import type {
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { ToolOutput } from "../types.js";

export interface ToolOutputLimits {
  readonly callsPerTurn: number;
  readonly resultChars: number;
  readonly conversationChars: number;
}

export const DEFAULT_TOOL_OUTPUT_LIMITS: ToolOutputLimits = {
  callsPerTurn: 64,
  resultChars: 128 * 1024,
  conversationChars: 2 * 1024 * 1024,
};

const ELIDED_PREFIX = "[tool result elided";

/** The error result of a call beyond the turn's limit. */
export function overTurnLimit(id: string, limits: ToolOutputLimits): ToolResultBlockParam {
  return {
    type: "tool_result",
    tool_use_id: id,
    is_error: true,
    content: `Not run: at most ${limits.callsPerTurn} tool calls are answered per turn (RunOptions.maxToolCallsPerTurn). Ask for it again in your next turn.`,
  };
}

/** `text` cut to the limit, with a marker that gives its full size. */
export function capToolResult(text: string, limits: ToolOutputLimits): string {
  if (text.length <= limits.resultChars) return text;
  return `${text.slice(0, limits.resultChars)}\n[... tool result truncated: ${count(text.length)} characters in all, the first ${count(limits.resultChars)} shown (RunOptions.maxToolResultChars)]`;
}

/**
 * A tool's output as a result's content, within the result limit: text as `capToolResult` cuts it
 * (then redacted), images as image blocks counted by their base64 length. An image that does not fit
 * in what is left of the limit becomes a line that says so; images are not redacted (redaction reads
 * text).
 */
export function toolResultContent(
  output: ToolOutput,
  limits: ToolOutputLimits,
  redact: (text: string) => string,
): ToolResultBlockParam["content"] {
  if (typeof output === "string") return redact(capToolResult(output, limits));
  const content: Array<TextBlockParam | ImageBlockParam> = [];
  let left = limits.resultChars;
  let text = "";
  const flush = (): void => {
    if (text === "") return;
    const shown = capToolResult(text, { ...limits, resultChars: Math.max(0, left) });
    left -= Math.min(text.length, Math.max(0, left));
    content.push({ type: "text", text: redact(shown) });
    text = "";
  };
  for (const block of output) {
    if (block.type === "text") {
      text += text === "" ? block.text : `\n${block.text}`;
      continue;
    }
    const room = Math.max(0, left - text.length);
    if (block.data.length <= room) {
      flush();
      left -= block.data.length;
      content.push({ type: "image", source: { type: "base64", media_type: block.mediaType, data: block.data } });
    } else {
      const line = `[image not shown: ${block.mediaType}, ${count(block.data.length)} characters of base64, more than the ${count(room)} left of this result's ${count(limits.resultChars)} (RunOptions.maxToolResultChars)]`;
      text += text === "" ? line : `\n${line}`;
    }
  }
  flush();
  return content;
}

/**
 * The conversation with its oldest tool results elided while they total more than the limit (down to
 * half of it), and the `tool_use_id`s elided this time. Results already elided are not touched again;
 * the messages that change are copies.
 */
export function elideToolResults(
  messages: readonly MessageParam[],
  limits: ToolOutputLimits,
): { readonly messages: MessageParam[]; readonly elided: readonly string[] } {
  let total = 0;
  for (const result of toolResults(messages)) total += sizeOf(result);
  if (total <= limits.conversationChars) return { messages: [...messages], elided: [] };
  const target = Math.floor(limits.conversationChars / 2);
  const elided: string[] = [];
  const rewritten = messages.map((message) => {
    if (total <= target || message.role !== "user" || typeof message.content === "string") return message;
    let changed = false;
    const content = message.content.map((block) => {
      if (total <= target || block.type !== "tool_result" || isElided(block)) return block;
      const size = sizeOf(block);
      const marker = `${ELIDED_PREFIX}: it was ${count(size)} characters, removed to keep this conversation's tool output under ${count(limits.conversationChars)} (RunOptions.maxConversationToolChars); call the tool again if you need it]`;
      total -= size - marker.length;
      elided.push(block.tool_use_id);
      changed = true;
      return { ...block, content: marker };
    });
    return changed ? { ...message, content } : message;
  });
  return { messages: rewritten, elided };
}

function* toolResults(messages: readonly MessageParam[]): Iterable<ToolResultBlockParam> {
  for (const message of messages)
    if (message.role === "user" && typeof message.content !== "string")
      for (const block of message.content) if (block.type === "tool_result") yield block;
}

function sizeOf(result: ToolResultBlockParam): number {
  const content = result.content;
  if (content === undefined) return 0;
  if (typeof content === "string") return content.length;
  return content.reduce(
    (sum, block) =>
      sum +
      (block.type === "text"
        ? block.text.length
        : block.type === "image" && block.source.type === "base64"
          ? block.source.data.length
          : 0),
    0,
  );
}

function isElided(result: ToolResultBlockParam): boolean {
  return typeof result.content === "string" && result.content.startsWith(ELIDED_PREFIX);
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}
