/**
 * Prompt caching (Anthropic's `cache_control`): requests are laid out stable-first (tools, the system
 * prompt, then the first message's stable blocks: an agent's memory, a session's context; then what
 * changes), and a breakpoint goes at the end of each stable part whose prefix repeats:
 *
 * - the system prompt, which with the tools before it is the same for every session of an agent, every
 *   judgment, every extraction;
 * - a block the request's builder marks `stable()`: persistent memory, a shared `context:` (the same
 *   across `parallel` branches and loop iterations), the values a judgment sees;
 * - in a session's tool-use loop, the end of the conversation so far, which the next turn repeats (and
 *   from the first turn on, when the agent's earlier sessions took more than one: the session marks
 *   its task `stable()` then).
 *
 * A breakpoint whose prefix is shorter than the model's minimum cacheable length would cache nothing,
 * so none is placed there; at most four are placed (the API's limit), the longest prefixes kept. The
 * server finds a cached prefix at a breakpoint or at up to 20 blocks before it.
 */
import type {
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages.js";

export const MAX_BREAKPOINTS = 4;

const stableBlocks = new WeakSet<object>();

/** A text block that stays the same across requests: a place for a breakpoint. */
export function stable(text: string): TextBlockParam {
  const block: TextBlockParam = { type: "text", text };
  stableBlocks.add(block);
  return block;
}

/**
 * The documented minimum cacheable prefix, in tokens: 1,024 for most Sonnet and Opus models, 2,048
 * for Sonnet 4.6 and Haiku 3 / 3.5, 4,096 for Opus 4.5 and later and Haiku 4.5. A later version of a
 * family takes its latest documented value; a model of no known family, 1,024.
 */
export function minimumCacheableTokens(model: string): number {
  const id = model.toLowerCase();
  if (/opus-4-[5-9]|opus-(?:[5-9]|\d{2})/.test(id)) return 4096;
  if (/haiku-4-[5-9]|haiku-(?:[5-9]|\d{2})/.test(id)) return 4096;
  if (/haiku/.test(id)) return 2048;
  if (/sonnet-4-[6-9]|sonnet-(?:[5-9]|\d{2})/.test(id)) return 2048;
  return 1024;
}

/**
 * A token estimate: a quarter of the characters. Real text has about that many or more, so a prefix
 * estimated at the minimum is at least that long.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const toolTokens = new WeakMap<object, number>();

/** The request with `cache_control` on the blocks chosen as breakpoints (copies; `params` is not changed). */
export function withBreakpoints(params: MessageCreateParamsNonStreaming): MessageCreateParamsNonStreaming {
  const minimum = minimumCacheableTokens(params.model);
  let prefix = tokensOfTools(params.tools);
  const chosen: object[] = [];
  const consider = (block: object, candidate: boolean): void => {
    if (candidate && prefix >= minimum) chosen.push(block);
  };
  const system =
    typeof params.system === "string" ? [{ type: "text" as const, text: params.system }] : (params.system ?? []);
  system.forEach((block, index) => {
    prefix += estimateTokens(block.text);
    consider(block, index === system.length - 1 || stableBlocks.has(block));
  });
  // After a tool call, the next turn repeats the conversation so far.
  const conversation = params.messages.filter((message) => message.role === "user").length > 1;
  params.messages.forEach((message, messageIndex) => {
    const blocks =
      typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
    blocks.forEach((block, index) => {
      prefix += estimateTokens(blockText(block));
      const last = conversation && messageIndex === params.messages.length - 1 && index === blocks.length - 1;
      consider(block, last || stableBlocks.has(block));
    });
  });
  if (chosen.length === 0) return params;
  const marked = new Set(chosen.slice(-MAX_BREAKPOINTS));
  const mark = <B extends object>(block: B): B =>
    marked.has(block) ? { ...block, cache_control: { type: "ephemeral" } } : block;
  return {
    ...params,
    system: system.map(mark),
    messages: params.messages.map((message): MessageParam => {
      if (typeof message.content === "string") return message;
      return { ...message, content: message.content.map(mark) } as MessageParam;
    }),
  };
}

function tokensOfTools(tools: MessageCreateParamsNonStreaming["tools"]): number {
  if (tools === undefined) return 0;
  let tokens = toolTokens.get(tools);
  if (tokens === undefined) {
    tokens = tools.reduce((sum, tool) => sum + estimateTokens(JSON.stringify(tool)), 0);
    toolTokens.set(tools, tokens);
  }
  return tokens;
}

function blockText(block: object): string {
  const { type, text, input, content } = block as { type?: string; text?: unknown; input?: unknown; content?: unknown };
  if (type === "text" && typeof text === "string") return text;
  if (type === "tool_use") return JSON.stringify(input ?? {});
  if (type === "tool_result")
    return typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((part: object) => blockText(part)).join("\n")
        : "";
  return JSON.stringify(block);
}
