/**
 * A session is an agent: a system prompt, a task with its context, and a tool-use loop that runs until
 * the model answers without asking for a tool. Tools are checked against `permissions:` before they
 * run; a tool the agent was not offered is refused even when the model names it (the result names the
 * tools it has), and the session goes on. An answer cut off at `max_tokens` is continued
 * (model-answers.ts); a refusal, and an empty answer unless the agent says `empty: allow`, fail the
 * step (docs/model-answers.md).
 */
import type {
  ContentBlockParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages.js";
import {
  currentEvents,
  elidedResults,
  PLAIN_SESSION_STEPS,
  rebuild,
  TransientConversation,
  unfinishedCall,
  type Conversation,
} from "../durable/conversation.js";
import type { RunCore, StepOutcome } from "../kernel/core.js";
import { AnswerFailure } from "../errors.js";
import { WaitingForApproval } from "../tools/approvals.js";
import { stable } from "../model/caching.js";
import {
  ANSWER_TOOL,
  DEFAULT_CONTINUATIONS,
  quote,
  refusal,
  replyText,
  toolCalls,
  continuationTurn,
  cutTextKept,
  type UnexpectedAnswer,
} from "../model/unexpected-answers.js";
import { dedent, systemPrompt, taskMessage } from "../model/prompt.js";
import { toolParam } from "../tools/tool.js";
import { elideToolResults, overTurnLimit } from "./tool-output.js";
import { permissionCall, runTool, toolOutputLimits } from "./tool-call.js";
import { duplicateIdProblem, duplicateIdResult, uniqueToolIds } from "./tool-ids.js";
import { MEMORY_TOOL, reportSavedMemory } from "./memory-tool.js";
import { readSkillTool, skillListing, type ResolvedSkill } from "../tools/skills.js";
import { changedSkills } from "../kernel/run-skills.js";
import { trailBudget, type TrailEntry } from "../values/trail.js";
import { answerTool, TypedAnswers } from "./typed-answer.js";
import type {
  AnswerAction,
  SessionRequest,
  Value,
  SessionSettings,
  SessionSteps,
  StepAsk,
  ToolContext,
} from "../types.js";
import type { BlockFrame } from "../types/internal.js";

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
  /** Offers `update_memory`; called once the session answers, with what the agent saved last. */
  readonly onMemory?: (memory: string, summary: string) => void;
  /** Where the session's turns are journaled; a resumed session goes on from what it holds. */
  readonly conversation?: Conversation;
  /** The session step's key: its streamed text's `delta` events carry it. */
  readonly step?: string;
  /** How its turns and tool calls run: plain calls unless the run's store checkpoints each (DBOS). */
  readonly steps?: SessionSteps;
}

/** Text, or a typed session's answer (`returns:`). */
export type AgentResult = StepOutcome<Value>;

export async function runAgent(core: RunCore, run: AgentRun, signal: AbortSignal): Promise<AgentResult> {
  const settings = effectiveSettings(run.request);
  const agent = run.request.agent;
  const toolbox = await core.toolboxWithMcp(settings.permissions, agent?.name, signal);
  const skills = core.skills.resolve(settings.skills, core.program.skillFolders);
  const toolContext: ToolContext = {
    cwd: toolbox.permissions.cwd,
    signal,
    permissions: toolbox.permissions,
    ...(skills.length > 0 && { skillFolders: skills.map((skill) => skill.folder) }),
  };
  let { offered, params: toolParams } = toolbox;
  if (run.onMemory !== undefined) {
    const tools = [...toolbox.tools, MEMORY_TOOL];
    offered = new Map(tools.map((tool) => [tool.name, tool]));
    toolParams = tools.map(toolParam);
  }
  const verdict = run.request.keep === true;
  // A typed session (`returns:`) ends with its `answer` tool; a filter's verdict is read as before.
  const returns = verdict ? undefined : run.request.returns;
  // A filter's verdict or a typed answer: one tool call answers it. Forced only when the agent has no
  // other tools, since forcing it would take away the tools the agent may need first.
  if (verdict) toolParams = [...toolParams, KEEP_TOOL];
  if (skills.length > 0) {
    const changed = await changedSkills(run.steps ?? PLAIN_SESSION_STEPS, skills);
    if (changed !== undefined) throw core.error(changed, run.request.at);
    const tools = [...offered.values(), readSkillTool(skills)];
    offered = new Map(tools.map((tool) => [tool.name, tool]));
    toolParams = [...toolParams, toolParam(readSkillTool(skills))];
  }
  if (returns !== undefined) toolParams = [...toolParams, answerTool(returns)];
  const forcedAnswer = { tool_choice: { type: "tool" as const, name: ANSWER_TOOL } };
  let choice: { tool_choice?: { type: "tool"; name: string } } =
    (verdict || returns !== undefined) && toolParams.length === 1 ? forcedAnswer : {};
  const model = core.model(settings.model);
  const system =
    run.request.skills === undefined && run.request.extra === undefined && skills.length === 0
      ? core.systemPromptOf(agent)
      : systemPrompt(
          core.program.name,
          settings,
          agent?.prompt,
          skills.length === 0 ? undefined : skillListing(skills),
        );
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
  const conversation = run.conversation ?? new TransientConversation();
  const steps = run.steps ?? PLAIN_SESSION_STEPS;
  const recorded = currentEvents(conversation.events);
  const firstResponse = recorded.find((event) => event.type === "response");
  // An agent whose sessions used tools before will likely again: the next turn reads its first from the cache.
  // A resumed conversation keeps the layout it was sent with, so its prefix stays cached.
  const turnsExpected =
    firstResponse === undefined
      ? toolParams.length > 0 && choice.tool_choice === undefined && core.usedTools(agent?.name)
      : firstResponse.cachedTask === true;
  if (turnsExpected) first.push(stable((first.pop() as TextBlockParam).text));
  const rebuilt = rebuild({ role: "user", content: first }, recorded);
  const { usage, turns, turnOpen, pending, results } = rebuilt;
  /** Calls renamed by `uniqueToolIds`, by the id given, with the id the model wrote: answered, never run. */
  const refused = new Map(rebuilt.renamed);
  let messages = rebuilt.messages;
  const maxTurns = core.options.maxTurns ?? DEFAULT_MAX_TURNS;
  const limits = toolOutputLimits(core.options);
  // The call at `index` of its turn: past the turn's limit, or renamed, it is answered with an error, not run.
  const journaledTool = async (call: ToolUseBlock, index: number): Promise<ToolResultBlockParam> => {
    const written = refused.get(call.id);
    if (written !== undefined || index >= limits.callsPerTurn) {
      const result = written !== undefined ? duplicateIdResult(call, written) : overTurnLimit(call.id, limits);
      conversation.append({ type: "tool-finished", id: call.id, result });
      return result;
    }
    const result = await steps
      .toolCall(
        call,
        async () => {
          await beforeToolCall(core, signal);
          conversation.append({ type: "tool-started", id: call.id, name: call.name });
        },
        (delivered) =>
          core.telemetry.tool(call, () => {
            // What a person is asked about is this call (approvals.ts).
            const asked = permissionCall(call, run.step ?? "", run.request.at, conversation.events, delivered);
            const permissions = toolbox.permissions.forCall(asked);
            return runTool(core, call, offered, { ...toolContext, permissions }, limits);
          }),
        offered.get(call.name)?.repeatable,
      )
      .catch((error: unknown) => {
        // Stopped for a person's approval before it ran: the resumed session asks again (approvals.ts).
        if (error instanceof WaitingForApproval) conversation.append({ type: "approval-pending", id: call.id });
        throw error;
      });
    conversation.append({ type: "tool-finished", id: call.id, result });
    return result;
  };
  // Old results elided to keep the conversation's tool output bounded: journaled, so a rebuilt
  // conversation elides the same results with the same markers.
  const elide = (): void => {
    const { messages: kept, elided } = elideToolResults(messages, limits);
    messages = kept;
    if (elided.length > 0) conversation.append({ type: "elided", results: elidedResults(kept, elided) });
  };
  if (turnOpen) {
    // Resumed after a crash inside the last turn's tool calls: finished calls keep their results; the
    // rest run now, except a call that had started and may not be repeated (`conversation.ts`).
    core.recordToolUse(agent?.name);
    for (const { call, started } of pending) {
      const interrupted = started ? unfinishedCall(call, offered.get(call.name)?.repeatable) : undefined;
      if (interrupted === undefined) results.push(await journaledTool(call, results.length));
      else {
        conversation.append({ type: "tool-finished", id: call.id, result: interrupted });
        results.push(interrupted);
      }
    }
    messages.push({ role: "user", content: results });
    elide();
  }
  const maxTokens = core.options.maxTokens ?? (await core.outputLimit(model, signal));
  const continuations = core.options.continuations ?? DEFAULT_CONTINUATIONS;
  const label = sessionLabel(run.request);
  // The pieces of an answer cut off at max_tokens, joined when it ends.
  const pieces: string[] = [...rebuilt.pieces];
  const problems: string[] = [];
  const typedAnswers =
    returns === undefined ? undefined : new TypedAnswers(core, returns, run.request.at, label, problems);
  // Cut text is no value of a `returns:` type: a typed session fails, whatever `onTruncation` says.
  const keep = cutTextKept(core.options.onTruncation, typedAnswers !== undefined);
  const unexpected = (wrong: UnexpectedAnswer, action: AnswerAction): void => {
    problems.push(wrong.detail);
    core.emit({
      type: "unexpected-answer",
      at: run.request.at,
      label,
      problem: wrong.problem,
      action,
      attempt: pieces.length + 1,
      detail: core.redact(wrong.detail),
    });
  };
  const answered = (text: Value, truncated?: true): AgentResult => {
    if (run.onMemory !== undefined) reportSavedMemory(messages, run.onMemory);
    return {
      value: text,
      usage,
      ...(pieces.length === 0 && !typedAnswers?.reasked
        ? {}
        : { attempts: pieces.length + (typedAnswers?.wrong.length ?? 0) + (truncated ? 0 : 1) }),
      ...(problems.length === 0 ? {} : { problems }),
      ...(truncated ? { truncated } : {}),
    };
  };

  for (let turn = turns; turn < maxTurns; turn++) {
    // A turn is recorded (journal, DBOS checkpoint) and continued from with its secrets redacted, so a
    // resumed conversation is the live one, byte for byte, and no secret the model repeats is stored.
    const { message: received, usage: callUsage } = await steps.turn(async () => {
      await beforeTurn(core, signal);
      const answered = await core.callModel(
        {
          model,
          max_tokens: maxTokens,
          system: [{ type: "text", text: system }],
          messages,
          ...(toolParams.length === 0 ? {} : { tools: toolParams }),
          ...choice,
        },
        signal,
        { at: run.request.at, label, ...(run.step === undefined ? {} : { step: run.step }) },
      );
      return core.secrets.redactDeep(answered);
    });
    usage.push(callUsage);
    // A call whose id the conversation has already gets an id of its own and is not run (tool-ids.ts).
    const unique = uniqueToolIds(received.content, messages);
    const message = unique.renamed.size === 0 ? received : { ...received, content: unique.content };
    for (const [id, written] of unique.renamed) {
      refused.set(id, written);
      unexpected(duplicateIdProblem(written), "tool-error");
    }
    if (message.stop_reason === "refusal") {
      const wrong = refusal(message);
      unexpected(wrong, "fail");
      throw new AnswerFailure("refusal", `${wrong.detail.replace(/^the/, "The")}.`);
    }
    const calls = toolCalls(message.content);
    const answer = verdict ? calls.find((call) => call.name === KEEP_TOOL.name) : undefined;
    if (answer !== undefined && message.stop_reason !== "max_tokens") return answered(verdictText(answer.input));
    const typed = await typedAnswers?.read(message, messages, choice.tool_choice !== undefined);
    if (typed?.kind === "answer") return answered(typed.value);
    if (typed?.kind === "ask") {
      // Forced from now on: the answer, asked for after text, or asked again after a wrong one.
      messages = typed.messages;
      choice = forcedAnswer;
      continue;
    }
    if (message.stop_reason === "model_context_window_exceeded") {
      // Going on would only make the conversation longer: the answer so far is kept or the step fails.
      const full: UnexpectedAnswer = {
        problem: "max-tokens",
        detail: "the answer was cut off: the conversation reached the model's context window",
      };
      unexpected(full, keep.kept ? "keep" : "fail");
      pieces.push(replyText(message.content));
      if (keep.kept) return answered(pieces.join(""), true);
      throw new Error(`The answer was cut off: the conversation reached the model's context window. ${keep.otherwise}`);
    }
    if (message.stop_reason === "max_tokens") {
      const cut: UnexpectedAnswer = {
        problem: "max-tokens",
        detail: `the answer was cut off at max_tokens (${maxTokens}) after ${quote(replyText(message.content).slice(-80))}`,
      };
      const piece = replyText(message.content);
      if (pieces.length >= continuations) {
        if (keep.kept) {
          unexpected(cut, "keep");
          pieces.push(piece);
          return answered(pieces.join(""), true);
        }
        unexpected(cut, "fail");
        throw new Error(
          `The answer was still cut off at max_tokens (${maxTokens}) after ${continuations} continuation${continuations === 1 ? "" : "s"} (--continuations, RunOptions.continuations). ` +
            keep.raise,
        );
      }
      unexpected(cut, "continue");
      pieces.push(piece);
      conversation.append({ type: "continued", content: message.content as ContentBlockParam[], usage: callUsage });
      messages = continuationTurn(messages, message);
      continue;
    }
    if (message.stop_reason !== "tool_use" || calls.length === 0) {
      const text = pieces.join("") + replyText(message.content);
      if (text.trim() === "" && settings.empty !== "allow") {
        const empty: UnexpectedAnswer = { problem: "empty", detail: "the answer was empty" };
        unexpected(empty, "fail");
        throw new Error(
          "The model's answer was empty. An agent whose sessions may answer with nothing says so with `empty: allow`.",
        );
      }
      return answered(text);
    }
    core.recordToolUse(agent?.name);
    const content = message.content as ContentBlockParam[];
    conversation.append({
      type: "response",
      content,
      stop: message.stop_reason,
      usage: callUsage,
      ...(turn === 0 && turnsExpected ? { cachedTask: true as const } : {}),
      ...(unique.renamed.size > 0 && { renamed: Object.fromEntries(unique.renamed) }),
    });
    messages.push({ role: "assistant", content });
    const turnResults: ToolResultBlockParam[] = [];
    for (const [index, call] of calls.entries()) {
      if (!offered.has(call.name))
        unexpected(
          { problem: "unknown-tool", detail: `the model called "${call.name}", which this agent is not offered` },
          "tool-error",
        );
      turnResults.push(await journaledTool(call, index));
    }
    messages.push({ role: "user", content: turnResults });
    elide();
  }
  throw new Error(`The agent used ${maxTurns} model turns without finishing (RunOptions.maxTurns).`);
}

/** The turn boundary: a cancelled or stopped run asks the model nothing more. */
async function beforeTurn(core: RunCore, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  await core.options.atBoundary?.("turn");
}

/** The tool boundary: a cancelled or stopped run starts no more tool calls. */
async function beforeToolCall(core: RunCore, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  await core.options.atBoundary?.("tool");
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

/** What a session asks: its task, context and agent, as the program gave them (not the request's layout). */
export function sessionAsk(
  request: SessionRequest,
  resume: boolean,
  resolvedSkills: readonly ResolvedSkill[] = [],
): StepAsk {
  // Asked for by the step's address, fingerprint and telemetry, several times a step: worked out once.
  let asked: unknown;
  const details = (): unknown => (asked ??= askedDetails());
  const askedDetails = (): unknown => {
    const { model, skills, permissions, extra, context, persist } = effectiveSettings(request);
    // The installed skills' files: an edited skill re-runs the steps that use it.
    const skillFiles =
      resolvedSkills.length === 0 ? {} : { skillFiles: resolvedSkills.map((skill) => `${skill.name}@${skill.digest}`) };
    return {
      ...skillFiles,
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
      // Last, and absent without `returns:`: the fingerprints of steps recorded before it existed stay as they were.
      returns: request.returns,
    };
  };
  return request.binding === undefined
    ? { text: sessionTask(request), details }
    : { binding: request.binding, text: sessionTask(request), details };
}
