/**
 * What a session's agent reads: the system prompt (the runtime's framing plus the agent's `prompt:`)
 * and the first user message: persistent memory and the context (or, without `context:`, the trail of
 * earlier results: trail.ts) first, in blocks that stay the same across requests (prompt caching,
 * caching.ts), then the block scope and the task.
 *
 * Context values are serialized under `## Context` with one `### name` section each, values as
 * `text()` shows them. Size strategy: when the values together exceed the budget, each value longer
 * than an equal share of the budget is cut to its beginning and end with a marker saying how much
 * was left out, so every binding stays visible and the prompt stays bounded. A context of paths or
 * globs is passed by reference: the agent reads those files with its tools.
 */
import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { stable } from "./caching.js";
import { trailSections, type TrailEntry } from "../values/trail.js";
import type { ContextSpec, SessionSettings, Value } from "../types.js";
import type { BlockFrame } from "../types/internal.js";
import { text } from "../values/expressions.js";

/** Removes the common leading indentation and the blank first and last lines of a multi-line prompt. */
export function dedent(prompt: string): string {
  if (!prompt.includes("\n")) return prompt;
  const lines = prompt.replace(/\r\n/g, "\n").split("\n");
  while (lines.length > 1 && lines[0]!.trim() === "") lines.shift();
  while (lines.length > 1 && lines[lines.length - 1]!.trim() === "") lines.pop();
  const indents = lines.filter((line) => line.trim() !== "").map((line) => /^[ \t]*/.exec(line)![0].length);
  const common = indents.length === 0 ? 0 : Math.min(...indents);
  return lines.map((line) => line.slice(Math.min(common, /^[ \t]*/.exec(line)![0].length))).join("\n");
}

const FRAMING = [
  'You are an agent working inside the OpenProse program "{program}".',
  "Do the task you are given, using your tools when they help.",
  "Your final reply is your result: the program passes it on verbatim, so reply with the result itself.",
].join(" ");

export function systemPrompt(
  programName: string,
  settings: SessionSettings,
  agentPrompt: string | undefined,
  skills?: string,
): string {
  const parts = [FRAMING.replace("{program}", programName)];
  if (agentPrompt !== undefined && agentPrompt.trim() !== "") parts.push(dedent(agentPrompt));
  // The installed skills, listed with their descriptions (tools/skills.ts); one that is not installed is not offered.
  if (skills !== undefined) parts.push(skills);
  if (settings.extra !== undefined && Object.keys(settings.extra).length > 0) {
    parts.push(
      `Notes from the program:\n${Object.entries(settings.extra)
        .map(([key, value]) => `- ${key}: ${text(value)}`)
        .join("\n")}`,
    );
  }
  return parts.join("\n\n");
}

/** Separates the trail from the session's own task. */
export const TASK_HEADING = "## Your task";

export interface TaskParts {
  readonly task: string;
  readonly context: ContextSpec | undefined;
  readonly block: BlockFrame | undefined;
  readonly trail: readonly TrailEntry[];
  /** The trail's budget in characters. */
  readonly trailBudget: number;
  /** `resume:` memory: the agent name and its memory file's content. */
  readonly memory?: { readonly agent: string; readonly content: string | undefined };
  readonly persistent?: boolean;
  readonly budget: number;
}

/**
 * The first user message, stable first: memory, then the context or (without `context:`) the trail,
 * each part's last block a breakpoint (caching.ts); then the task with its scope.
 */
export function taskMessage(parts: TaskParts): TextBlockParam[] {
  const blocks: TextBlockParam[] = [];
  if (parts.memory !== undefined) {
    const content = parts.memory.content?.trim() ?? "";
    blocks.push(
      stable(
        content.startsWith("# Agent Memory")
          ? content
          : `## Agent Memory: ${parts.memory.agent}\n\n${content || "(no memory yet)"}`,
      ),
    );
  }
  blocks.push(...stableBlocks(contextSections(parts.context, parts.budget)));
  const trail = trailSections(parts.trail, parts.trailBudget);
  blocks.push(...stableBlocks(trail));
  const task: string[] = trail.length > 0 ? [TASK_HEADING] : [];
  if (parts.block !== undefined) {
    task.push(
      `Execution scope:\n  execution_id: ${parts.block.executionId}\n  block: ${parts.block.name}\n  depth: ${parts.block.depth}\n  parent_execution_id: ${parts.block.parentExecutionId}`,
    );
  }
  task.push(dedent(parts.task));
  if (parts.persistent === true) {
    task.push(
      "You are a persistent agent. Before your final reply, call update_memory with your compacted memory (specific findings, decisions with reasons, open concerns) and a summary of this session.",
    );
  }
  blocks.push({ type: "text", text: task.join("\n\n") });
  return blocks;
}

/**
 * The context in sections, one per binding (the first under the `## Context` heading): sent as blocks
 * of their own, so that a request whose context extends an earlier request's finds that prefix cached.
 */
export function contextSections(context: ContextSpec | undefined, budget: number): string[] {
  if (context === undefined) return [];
  if (isPathList(context)) {
    if (context.length === 0) return [];
    return [
      `## Context (by reference)\n\nRead these files to access the content (paths and globs relative to the working directory):\n${context.map((path) => `- ${path}`).join("\n")}`,
    ];
  }
  const entries = Object.entries(context).map(([name, value]) => [name, text(value as Value)] as const);
  if (entries.length === 0) return [];
  const total = entries.reduce((sum, [, value]) => sum + value.length, 0);
  const share = Math.floor(budget / entries.length);
  const fitted = total <= budget ? entries : entries.map(([name, value]) => [name, shorten(value, share)] as const);
  return fitted.map(([name, value], index) => `${index === 0 ? "## Context\n\n" : ""}### ${name}\n\n${value}`);
}

/** Sections as text blocks; the last is where a breakpoint may go (caching.ts). */
export function stableBlocks(sections: readonly string[]): TextBlockParam[] {
  return sections.map((section, index) =>
    index === sections.length - 1 ? stable(section) : { type: "text", text: section },
  );
}

function isPathList(context: ContextSpec): context is readonly string[] {
  return Array.isArray(context);
}

function shorten(value: string, limit: number): string {
  if (value.length <= limit) return value;
  const keep = Math.max(0, Math.floor(limit / 2) - 40);
  return `${value.slice(0, keep)}\n\n[... ${value.length - 2 * keep} characters omitted ...]\n\n${value.slice(value.length - keep)}`;
}
