/**
 * A tool call's input nested deeper than a value from a model may (values/depth.ts): each reply's
 * tool inputs are measured as the reply arrives, and an input nested deeper is replaced by a small
 * stand-in that says how deep it was. The call is then answered as a wrong one: a typed answer is
 * re-asked like any other invalid answer, any other tool gets a tool error. The stand-in is what the
 * journal keeps, so a resumed run continues the same conversation.
 */
import type { ContentBlock, Message } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { MAX_VALUE_DEPTH, nestingDepth } from "../values/depth.js";

/** The key of the stand-in for an input nested too deep: its value is the depth. */
const TOO_DEEP = "$prosec_input_too_deep";

/** The message with each tool input nested deeper than `MAX_VALUE_DEPTH` replaced by its stand-in. */
export function withBoundedInputs(message: Message): Message {
  let changed = false;
  const content = message.content.map((block): ContentBlock => {
    if (block.type !== "tool_use" || nestingDepth(block.input, MAX_VALUE_DEPTH) <= MAX_VALUE_DEPTH) return block;
    changed = true;
    return { ...block, input: { [TOO_DEEP]: nestingDepth(block.input) } };
  });
  return changed ? { ...message, content } : message;
}

/** How deep the input was, when it is the stand-in of one nested too deep. */
export function tooDeepInput(input: unknown): number | undefined {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return undefined;
  const depth = (input as Record<string, unknown>)[TOO_DEEP];
  return typeof depth === "number" && Object.keys(input).length === 1 ? depth : undefined;
}

/** What was wrong with such an input, for the model and the step's record. */
export function tooDeepProblem(what: "answer" | "input", depth: number): string {
  return `the ${what} nests ${depth.toLocaleString("en-US")} levels deep; an ${what} may nest at most ${MAX_VALUE_DEPTH}`;
}
