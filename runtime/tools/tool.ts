import type { Tool } from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { PermissionGuard } from "./permissions.js";

/** JSON Schema of a tool's input, as the Messages API takes it. */
export interface ToolInputSchema {
  readonly type: "object";
  readonly properties?: Readonly<Record<string, unknown>>;
  readonly required?: readonly string[];
}

export interface ToolContext {
  readonly cwd: string;
  readonly signal: AbortSignal;
  readonly permissions: PermissionGuard;
}

/**
 * A tool a session's agent can call. `run` returns the text the model sees; throwing reports the
 * error to the model (as an `is_error` result), which can then try something else.
 */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  run(input: Readonly<Record<string, unknown>>, context: ToolContext): Promise<string> | string;
}

/** Refused by `permissions:`; the model is told, the tool never runs. */
export class PermissionDenied extends Error {
  override readonly name = "PermissionDenied";
}

/** The tool as the Messages API takes it. */
export function toolParam(tool: ToolDefinition): Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema as Tool["input_schema"] };
}
