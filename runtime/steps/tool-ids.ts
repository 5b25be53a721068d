/**
 * Tool calls whose id the conversation has already: a misbehaving model can reply with two
 * `tool_use` blocks of one id, or reuse an id of an earlier turn. The Messages API refuses a
 * conversation whose `tool_use` ids are not unique (400 "`tool_use` ids must be unique") and wants
 * one `tool_result` per id, so such a call is given an id of its own before the reply joins the
 * conversation and is answered with an error, never run: the first call of an id runs once.
 */
import type {
  ContentBlock,
  MessageParam,
  ToolResultBlockParam,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { UnexpectedAnswer } from "../model/unexpected-answers.js";

export interface UniqueIds {
  /** The reply's content, each tool call with an id the conversation does not have yet. */
  readonly content: ContentBlock[];
  /** The ids given to calls whose id was used already, each with the id the model wrote. */
  readonly renamed: ReadonlyMap<string, string>;
}

/** `content` with every tool call's id unique in the conversation `messages` and in the reply. */
export function uniqueToolIds(content: readonly ContentBlock[], messages: readonly MessageParam[]): UniqueIds {
  // Most replies call no tool: the conversation's ids are not even collected.
  if (!content.some((block) => block.type === "tool_use")) return { content: [...content], renamed: new Map() };
  const used = toolUseIds(messages);
  const renamed = new Map<string, string>();
  const unique = content.map((block) => {
    if (block.type !== "tool_use") return block;
    if (!used.has(block.id)) {
      used.add(block.id);
      return block;
    }
    // The API takes ids of letters, digits, `_` and `-`: a suffix of those keeps a valid id valid.
    let count = 2;
    while (
      used.has(`${block.id}_${count}`) ||
      content.some((other) => other.type === "tool_use" && other.id === `${block.id}_${count}`)
    )
      count++;
    const id = `${block.id}_${count}`;
    used.add(id);
    renamed.set(id, block.id);
    return { ...block, id };
  });
  return { content: renamed.size === 0 ? [...content] : unique, renamed };
}

/** What a call renamed by `uniqueToolIds` is answered with. */
export function duplicateIdResult(call: ToolUseBlock, written: string): ToolResultBlockParam {
  return {
    type: "tool_result",
    tool_use_id: call.id,
    is_error: true,
    content: `This ${call.name} call was not run: its id ${written} was used already by another tool call in this conversation. Each tool call needs an id of its own; make the call again if it is still needed.`,
  };
}

/** The unexpected answer a renamed call is reported as (an `unexpected-answer` event). */
export function duplicateIdProblem(written: string): UnexpectedAnswer {
  return { problem: "duplicate-tool-id", detail: `the model used the tool call id ${written} twice` };
}

/** The ids of the tool calls in `messages`' assistant turns. */
function toolUseIds(messages: readonly MessageParam[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages)
    if (message.role === "assistant" && typeof message.content !== "string")
      for (const block of message.content) if (block.type === "tool_use") ids.add(block.id);
  return ids;
}
