import type { Tool } from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { ToolDefinition } from "../types.js";

/** Refused by `permissions:`; the model is told, the tool never runs. */
export class PermissionDenied extends Error {
  override readonly name = "PermissionDenied";
}

/** The tool as the Messages API takes it. */
export function toolParam(tool: ToolDefinition): Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema as Tool["input_schema"] };
}
