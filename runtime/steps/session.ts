/**
 * A session is an agent: a system prompt, a task with its context, and a tool-use loop that runs until
 * the model answers without asking for a tool. Tools are checked against `permissions:` before they
 * run; a tool the agent was not offered is refused even when the model names it.
 */
import type {
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { RunCore } from "../run/core.js";
import { describeError } from "../errors.js";
import { stable } from "../model/caching.js";
import { dedent, systemPrompt, taskMessage } from "../model/prompt.js";
import { PermissionDenied, toolParam } from "../tools/tool.js";
import type { BlockFrame } from "../run/step-context.js";
import {
  capToolResult,
  DEFAULT_TOOL_OUTPUT_LIMITS,
  elideToolResults,
  overTurnLimit,
  type ToolOutputLimits,
} from "./tool-output.js";
import { trailBudget, type TrailEntry } from "./trail.js";
import type { SessionRequest, SessionSettings, StepAsk, ToolContext, ToolDefinition, Usage } from "../types.js";

const DEFAULT_MAX_TOKENS = 8192;
const DEFAULT_MAX_TURNS = 50;
const DEFAULT_CONTEXT_BUDGET = 200_000;

/** The agent's settings with the session's own properties on top (prose.md, "Property Precedence"). */
export function effectiveSettings(request: SessionRequest): SessionSettings {
  const agent = request.agent;
  if (agent === undefined) return request;
  const merged: Record<string, unknown> = { ...agent };
  for (const [key, value] of Object.entries(request)) if (value !== undefined && key !== "prompt") merged[key] = value;
  return merged as SessionSettings;
}

/** The label a session shows in traces and errors. */
export function sessionLabel(request: SessionRequest): string {
  const text = request.label ?? request.prompt ?? request.agent?.name ?? "session";
  const line = dedent(text).split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** The task text: the session's prompt, else its label, else the agent's role. */
export function sessionTask(request: SessionRequest): string {
  return request.prompt ?? request.label ?? "Carry out your role as described in your instructions.";
}

export interface AgentRun {
  readonly request: SessionRequest;
  readonly block: BlockFrame | undefined;
  /** What the program did before, when the session has no `context:`. */
  readonly trail: readonly TrailEntry[];
  /** `resume:`: the agent's memory as loaded (undefined content when there is none yet). */
  readonly memory?: { readonly agent: string; readonly content: string | undefined };
  /** Offers `update_memory`; called with what the agent gave it. */
  readonly onMemory?: (memory: string, summary: string) => void;
}

export interface AgentResult {
  readonly text: string;
  readonly usage: readonly Usage[];
}

export async function runAgent(core: RunCore, run: AgentRun, signal: AbortSignal): Promise<AgentResult> {
  const settings = effectiveSettings(run.request);
  const agent = run.request.agent;
  const toolbox = core.toolbox(settings.permissions, agent?.name);
  const toolContext: ToolContext = { cwd: toolbox.permissions.cwd, signal, permissions: toolbox.permissions };
  let { offered, params: toolParams } = toolbox;
  if (run.onMemory !== undefined) {
    const tools = [...toolbox.tools, memoryTool(run.onMemory)];
    offered = new Map(tools.map((tool) => [tool.name, tool]));
    toolParams = tools.map(toolParam);
  }
  const verdict = run.request.keep === true;
  // A filter's verdict: one tool call answers it. Forced only when the agent has no other tools, since
  // forcing it would take away the tools the agent may need to decide.
  if (verdict) toolParams = [...toolParams, KEEP_TOOL];
  const choice =
    verdict && toolParams.length === 1 ? { tool_choice: { type: "tool" as const, name: KEEP_TOOL.name } } : {};
  const model = core.model(settings.model);
  const system =
    run.request.skills === undefined && run.request.extra === undefined
      ? core.systemPromptOf(agent)
      : systemPrompt(core.program.name, settings, agent?.prompt);
  const first = taskMessage({
    task: sessionTask(run.request),
    context: settings.context,
    block: run.block,
    trail: run.trail,
    trailBudget: trailBudget(core),
    ...(run.memory === undefined ? {} : { memory: run.memory }),
    persistent: run.onMemory !== undefined,
    budget: core.options.contextBudget ?? DEFAULT_CONTEXT_BUDGET,
  });
  // An agent whose sessions used tools before will likely again: the next turn reads its first from the cache.
  const turnsExpected = toolParams.length > 0 && choice.tool_choice === undefined && core.usedTools(agent?.name);
  if (turnsExpected) first.push(stable((first.pop() as TextBlockParam).text));
  const usage: Usage[] = [];
  const maxTurns = core.options.maxTurns ?? DEFAULT_MAX_TURNS;
  const limits = toolOutputLimits(core.options);

  let messages: MessageParam[] = [{ role: "user", content: first }];
  for (let turn = 0; turn < maxTurns; turn++) {
    const { message, usage: callUsage } = await core.callModel(
      {
        model,
        max_tokens: core.options.maxTokens ?? DEFAULT_MAX_TOKENS,
        system: [{ type: "text", text: system }],
        messages,
        ...(toolParams.length === 0 ? {} : { tools: toolParams }),
        ...choice,
      },
      signal,
    );
    usage.push(callUsage);
    const calls = message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
    const answer = verdict ? calls.find((call) => call.name === KEEP_TOOL.name) : undefined;
    if (answer !== undefined) return { text: verdictText(answer.input), usage };
    if (message.stop_reason !== "tool_use" || calls.length === 0) return { text: textOf(message.content), usage };
    core.recordToolUse(agent?.name);
    messages.push({ role: "assistant", content: message.content as ContentBlockParam[] });
    const results: ToolResultBlockParam[] = [];
    for (const [index, call] of calls.entries())
      results.push(
        index < limits.callsPerTurn
          ? await runTool(core, call, offered, toolContext, limits)
          : overTurnLimit(call.id, limits),
      );
    messages.push({ role: "user", content: results });
    messages = elideToolResults(messages, limits).messages;
  }
  throw new Error(`The agent used ${maxTurns} model turns without finishing (RunOptions.maxTurns).`);
}

async function runTool(
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
    return {
      type: "tool_result",
      tool_use_id: call.id,
      is_error: true,
      content: `The tool ${call.name} is not available to this agent.`,
    };
  }
  try {
    const output = await tool.run(input, context);
    core.emit({ type: "tool", tool: call.name, allowed: true, detail });
    // Tool output goes back to the model: a secret a tool met (a file, a page) is not handed to it.
    return { type: "tool_result", tool_use_id: call.id, content: core.redact(capToolResult(output, limits)) };
  } catch (error) {
    if (context.signal.aborted) throw error;
    core.emit({ type: "tool", tool: call.name, allowed: !(error instanceof PermissionDenied), detail });
    return { type: "tool_result", tool_use_id: call.id, is_error: true, content: core.redact(describeError(error)) };
  }
}

function toolOutputLimits(options: RunCore["options"]): ToolOutputLimits {
  return {
    callsPerTurn: options.maxToolCallsPerTurn ?? DEFAULT_TOOL_OUTPUT_LIMITS.callsPerTurn,
    resultChars: options.maxToolResultChars ?? DEFAULT_TOOL_OUTPUT_LIMITS.resultChars,
    conversationChars: options.maxConversationToolChars ?? DEFAULT_TOOL_OUTPUT_LIMITS.conversationChars,
  };
}

const KEEP_TOOL: Tool = {
  name: "answer",
  description:
    "Give your verdict on the item: keep it (true) or leave it out (false), with a one-sentence reason. Call it once you have decided; it ends your turn.",
  input_schema: {
    type: "object",
    properties: { keep: { type: "boolean" }, reason: { type: "string" } },
    required: ["keep", "reason"],
  },
};

/** A verdict as the session's result: a leading yes or no (what `filter:` reads), then the reason. */
function verdictText(input: unknown): string {
  const { keep, reason } = (input ?? {}) as { keep?: unknown; reason?: unknown };
  const decided = keep === true || keep === "true" ? "yes" : keep === false || keep === "false" ? "no" : undefined;
  if (decided === undefined) return typeof reason === "string" ? reason : JSON.stringify(input);
  return typeof reason === "string" && reason.trim() !== "" ? `${decided}: ${reason.trim()}` : decided;
}

function memoryTool(onMemory: (memory: string, summary: string) => void): ToolDefinition {
  return {
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
    run(input) {
      onMemory(String(input["memory"] ?? ""), String(input["summary"] ?? ""));
      return "Memory saved.";
    },
  };
}

function textOf(content: readonly { type: string; text?: string }[]): string {
  return content
    .filter((block) => block.type === "text")
    .map((block) => block.text ?? "")
    .join("\n");
}

function describeInput(input: Record<string, unknown>): string {
  const main = input["path"] ?? input["command"] ?? input["url"] ?? input["pattern"];
  return typeof main === "string" ? main.slice(0, 200) : JSON.stringify(input).slice(0, 200);
}

/** What a session asks: its task, context and agent, as the program gave them (not the request's layout). */
export function sessionAsk(request: SessionRequest, resume: boolean): StepAsk {
  const details = (): unknown => {
    const { model, skills, permissions, extra, context, persist } = effectiveSettings(request);
    return {
      task: sessionTask(request),
      agent: request.agent?.name,
      role: request.agent?.prompt,
      model,
      context,
      skills,
      permissions,
      extra,
      persist,
      resume,
    };
  };
  return request.binding === undefined
    ? { text: sessionTask(request), details }
    : { binding: request.binding, text: sessionTask(request), details };
}
