/**
 * A persistent agent's `update_memory` tool (docs/language.md, "Persistent agents"). The tool only
 * answers: what the agent saved is read from the conversation when the session answers, so a resumed
 * session, whose finished calls do not run again (from the run's journal, or DBOS checkpoints), still
 * records it.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { ToolDefinition } from "../types.js";

export const MEMORY_TOOL: ToolDefinition = {
  name: "update_memory",
  description: "Save your compacted memory (replaces memory.md) and a summary of this session (its segment record).",
  inputSchema: {
    type: "object",
    properties: {
      memory: {
        type: "string",
        description: "Your whole new memory: current understanding, decisions made, open concerns",
      },
      summary: { type: "string", description: "What happened in this session" },
    },
    required: ["memory", "summary"],
  },
  run: () => "Memory saved.",
};

/**
 * Gives `onMemory` the input of the conversation's last `update_memory` call that succeeded (not
 * refused past the turn's call limit), if any.
 */
export function reportSavedMemory(
  messages: readonly MessageParam[],
  onMemory: (memory: string, summary: string) => void,
): void {
  const succeeded = new Set<string>();
  for (const message of messages)
    if (message.role === "user" && typeof message.content !== "string")
      for (const block of message.content)
        if (block.type === "tool_result" && block.is_error !== true) succeeded.add(block.tool_use_id);
  let saved: { memory: string; summary: string } | undefined;
  for (const message of messages)
    if (message.role === "assistant" && typeof message.content !== "string")
      for (const block of message.content)
        if (block.type === "tool_use" && block.name === MEMORY_TOOL.name && succeeded.has(block.id)) {
          const input = (block.input ?? {}) as Record<string, unknown>;
          saved = { memory: String(input["memory"] ?? ""), summary: String(input["summary"] ?? "") };
        }
  if (saved !== undefined) onMemory(saved.memory, saved.summary);
}
