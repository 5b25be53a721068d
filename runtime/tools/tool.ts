import type { Tool } from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { ToolDefinition } from "../types.js";

/** Refused by `permissions:`; the model is told, the tool never runs. */
export class PermissionDenied extends Error {
  override readonly name = "PermissionDenied";
}

/**
 * A command ran, but the sandbox undid or refused part of what it did (protected names it made, network
 * requests the proxy refused): a tool error for the model, and `sandbox` lines on the run's `tool` event
 * for the person running it.
 */
export class SandboxReport extends Error {
  override readonly name = "SandboxReport";
  constructor(
    message: string,
    /** One line per thing undone or refused. */
    readonly lines: readonly string[],
  ) {
    super(message);
  }
}

/** The tool as the Messages API takes it. */
export function toolParam(tool: ToolDefinition): Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema as Tool["input_schema"] };
}
