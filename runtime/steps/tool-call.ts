/**
 * One tool call of a session: the tool looked up among those the agent was offered (one it was not
 * is refused, naming the tools it has), run, and its result or error capped and redacted for the
 * model, with a `tool` run event (a sandbox's report on it). A stop for a person's approval and a
 * cancelled run are not tool errors: they end the turn.
 */
import type { ToolResultBlockParam, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { describeError, WaitingForInput } from "../errors.js";
import type { RunCore } from "../kernel/core.js";
import { tooDeepInput, tooDeepProblem } from "../model/input-depth.js";
import { PermissionDenied, SandboxReport } from "../tools/tool.js";
import type { PermissionCall } from "../tools/permissions.js";
import type { DeliveredAnswer, Site, ToolContext, ToolDefinition, TurnEvent } from "../types.js";
import { DEFAULT_TOOL_OUTPUT_LIMITS, toolResultContent, type ToolOutputLimits } from "./tool-output.js";

export async function runTool(
  core: RunCore,
  call: ToolUseBlock,
  offered: ReadonlyMap<string, ToolDefinition>,
  context: ToolContext,
  limits: ToolOutputLimits,
): Promise<ToolResultBlockParam> {
  const input = (call.input ?? {}) as Record<string, unknown>;
  const detail = describeInput(input);
  const tool = offered.get(call.name);
  if (tool === undefined) {
    core.emit({ type: "tool", tool: call.name, allowed: false, detail });
    const names = [...offered.keys()];
    return {
      type: "tool_result",
      tool_use_id: call.id,
      is_error: true,
      content: `The tool ${call.name} is not available to this agent. ${names.length === 0 ? "It has no tools." : `Its tools are: ${names.join(", ")}.`}`,
    };
  }
  const depth = tooDeepInput(call.input);
  if (depth !== undefined) {
    core.emit({ type: "tool", tool: call.name, allowed: false, detail });
    return {
      type: "tool_result",
      tool_use_id: call.id,
      is_error: true,
      content: `Not run: ${tooDeepProblem("input", depth)}.`,
    };
  }
  try {
    const output = await tool.run(input, context);
    core.emit({ type: "tool", tool: call.name, allowed: true, detail });
    // Tool output goes back to the model: a secret a tool met (a file, a page) is not handed to it.
    return {
      type: "tool_result",
      tool_use_id: call.id,
      content: toolResultContent(output, limits, (text) => core.redact(text)),
    };
  } catch (error) {
    if (context.signal.aborted || error instanceof WaitingForInput) throw error;
    const sandbox = error instanceof SandboxReport ? { sandbox: error.lines.map((line) => core.redact(line)) } : {};
    core.emit({ type: "tool", tool: call.name, allowed: !(error instanceof PermissionDenied), detail, ...sandbox });
    return { type: "tool_result", tool_use_id: call.id, is_error: true, content: core.redact(describeError(error)) };
  }
}

/**
 * The call as a person may be asked about it (approvals.ts): with the session's attempts before this
 * one (the `restart`s of a `retry:` in its conversation), so a yes in one attempt is not one in the next.
 */
export function permissionCall(
  call: ToolUseBlock,
  step: string,
  at: Site,
  events: readonly TurnEvent[],
  delivered: DeliveredAnswer | undefined,
): PermissionCall {
  const attempt = events.filter((event) => event.type === "restart").length;
  return {
    id: call.id,
    input: call.input,
    step,
    at,
    ...(attempt === 0 ? {} : { attempt }),
    ...(delivered === undefined ? {} : { delivered }),
  };
}

export function toolOutputLimits(options: RunCore["options"]): ToolOutputLimits {
  return {
    callsPerTurn: options.maxToolCallsPerTurn ?? DEFAULT_TOOL_OUTPUT_LIMITS.callsPerTurn,
    resultChars: options.maxToolResultChars ?? DEFAULT_TOOL_OUTPUT_LIMITS.resultChars,
    conversationChars: options.maxConversationToolChars ?? DEFAULT_TOOL_OUTPUT_LIMITS.conversationChars,
  };
}

function describeInput(input: Record<string, unknown>): string {
  const main = input["path"] ?? input["command"] ?? input["url"] ?? input["pattern"];
  return typeof main === "string" ? main.slice(0, 200) : JSON.stringify(input).slice(0, 200);
}
