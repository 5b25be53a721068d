/**
 * A session's conversation as a sequence of turn events, journaled one by one while the session runs,
 * so that a resumed run rebuilds the conversation and sends only the next turn.
 *
 * Events, in the order they happen:
 *
 *   response        a model reply that asked for tools: its content blocks, usage and stop reason
 *                   (the reply that ends the session is the session step's own record instead)
 *   tool-started    written before a tool call runs
 *   tool-finished   written after it, with the result the model is given
 *   continued       a reply cut off at max_tokens, and the request to go on (`unexpected-answers.ts`)
 *   elided          old tool results replaced by a short note (`tool-output.ts`), with the notes
 *   restart         a `retry:` attempt starts the conversation over
 *
 * Anything else a session loop adds to the conversation (a user message asking the model to go on,
 * an old tool result replaced by a short note) is one more event kind here with its own case in
 * `rebuild`, so the prefix a resumed run sends is byte-identical to the one the model saw: JSON
 * round-trips the content blocks as they were, and the prompt cache still hits.
 */
import type {
  ContentBlock,
  ContentBlockParam,
  Message,
  MessageParam,
  ToolResultBlockParam,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages.js";
import { continuationTurn, replyText } from "../model/unexpected-answers.js";
import type { Conversation, SessionSteps, TurnEvent, Usage } from "../types.js";

export type { Conversation, TurnEvent };

/**
 * A conversation nobody keeps: a run without a journal that keeps turns, or a DBOS run, whose
 * checkpoints of each turn and tool call keep the session instead (`SessionSteps`).
 */
export class TransientConversation implements Conversation {
  readonly events: TurnEvent[] = [];

  append(event: TurnEvent): void {
    this.events.push(event);
  }
}

/** Turns and tool calls as plain calls: the conversation's journal is what a resumed session goes on from. */
export const PLAIN_SESSION_STEPS: SessionSteps = {
  turn: (ask) => ask(),
  toolCall: async (_call, start, run) => {
    await start();
    return run();
  },
  once: (_name, effect) => effect(),
};

/** The events after the last `restart`. */
export function currentEvents(events: readonly TurnEvent[]): TurnEvent[] {
  let start = 0;
  events.forEach((event, index) => {
    if (event.type === "restart") start = index + 1;
  });
  return events.slice(start);
}

/** A conversation rebuilt from its events: the messages to send next and what is left to do. */
export interface Rebuilt {
  readonly messages: MessageParam[];
  readonly usage: Usage[];
  readonly turns: number;
  /** The text of replies cut off at max_tokens so far, joined to the answer when it ends. */
  readonly pieces: readonly string[];
  /** The last response's tool results are not in `messages` yet: run what is `pending`, then send them. */
  readonly turnOpen: boolean;
  /** The tool calls of the last response that have no result yet, in the order the model made them. */
  readonly pending: readonly PendingCall[];
  /** Results of the last response's calls already finished (the user message being built). */
  readonly results: ToolResultBlockParam[];
  /** Calls given an id of their own because the model reused one (`TurnEvent` `renamed`), with the id it wrote. */
  readonly renamed: ReadonlyMap<string, string>;
}

export interface PendingCall {
  readonly call: ToolUseBlock;
  /** A `tool-started` record exists: the call may have had its effect. */
  readonly started: boolean;
}

/**
 * The messages a session sends after `events`, starting from its first user message. The last
 * response's tool calls are split into finished (their recorded results) and pending.
 */
export function rebuild(first: MessageParam, events: readonly TurnEvent[]): Rebuilt {
  let messages: MessageParam[] = [first];
  const pieces: string[] = [];
  const usage: Usage[] = [];
  let turns = 0;
  let calls: ToolUseBlock[] = [];
  let results: ToolResultBlockParam[] = [];
  let started = new Set<string>();
  let closed = false;
  const renamed = new Map<string, string>();
  const closeTurn = (): void => {
    if (calls.length > 0) messages.push({ role: "user", content: results });
    calls = [];
    results = [];
    started = new Set();
  };
  for (const event of events) {
    switch (event.type) {
      case "response":
        closeTurn();
        closed = false;
        turns++;
        usage.push(event.usage);
        messages.push({ role: "assistant", content: [...event.content] });
        calls = event.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
        for (const [id, written] of Object.entries(event.renamed ?? {})) renamed.set(id, written);
        break;
      case "tool-started":
        started.add(event.id);
        break;
      case "tool-finished":
        results.push(event.result);
        break;
      case "continued":
        closeTurn();
        closed = true;
        turns++;
        usage.push(event.usage);
        pieces.push(replyText(event.content as ContentBlock[]));
        messages = continuationTurn(messages, { content: event.content } as Message);
        break;
      case "elided":
        closeTurn();
        closed = true;
        applyElision(messages, event.results);
        break;
      case "approval-pending":
        // It stopped before it ran: the resumed session asks again, then runs it (once, if approved).
        started.delete(event.id);
        break;
      case "restart":
        return rebuild(first, currentEvents(events));
    }
  }
  const done = new Set(results.map((result) => result.tool_use_id));
  const pending = calls.filter((call) => !done.has(call.id)).map((call) => ({ call, started: started.has(call.id) }));
  return { messages, usage, pieces, turns, turnOpen: turns > 0 && !closed, pending, results, renamed };
}

/**
 * Tools that may run again when a crash left their call unfinished: they read, or they set what they
 * write whole (`write_file`, `update_memory`), so running them twice does what running them once does.
 * Any other tool (`edit_file`, `run_command`, a tool of `RunOptions.tools`) is not run again (`unfinishedCall`),
 * unless its definition says it is `repeatable` (an MCP tool marked `readOnlyHint` or `idempotentHint`).
 */
const REPEATABLE: ReadonlySet<string> = new Set([
  "read_file",
  "list_files",
  "search_files",
  "fetch_url",
  "write_file",
  "update_memory",
]);

/**
 * What a call that started before a crash and never finished gets: undefined when it runs again, else
 * the result telling the model it was interrupted. The one rule for file runs (a `tool-started` record
 * without its `tool-finished`) and DBOS (a started marker checkpointed, the call's own checkpoint not).
 */
export function unfinishedCall(call: ToolUseBlock, repeatable = false): ToolResultBlockParam | undefined {
  return repeatable || REPEATABLE.has(call.name) ? undefined : interruptedResult(call);
}

/** The result a model is given for a call that was interrupted and is not run again. */
function interruptedResult(call: ToolUseBlock): ToolResultBlockParam {
  return {
    type: "tool_result",
    tool_use_id: call.id,
    is_error: true,
    content: `The run was interrupted while this ${call.name} call was running, and it is not run again: its effect is unknown (it may have completed, partly or fully, or not at all). Check the current state before relying on it, then decide what to do.`,
  };
}

/** The notes that replaced the results `ids` in `messages`, to be journaled. */
export function elidedResults(
  messages: readonly MessageParam[],
  ids: readonly string[],
): { readonly id: string; readonly content: string }[] {
  const wanted = new Set(ids);
  const notes: { id: string; content: string }[] = [];
  for (const message of messages)
    if (message.role === "user" && typeof message.content !== "string")
      for (const block of message.content)
        if (block.type === "tool_result" && wanted.has(block.tool_use_id) && typeof block.content === "string")
          notes.push({ id: block.tool_use_id, content: block.content });
  return notes;
}

/** Replaces the journaled results with their notes, as the session did when it elided them. */
function applyElision(
  messages: MessageParam[],
  notes: readonly { readonly id: string; readonly content: string }[],
): void {
  const byId = new Map(notes.map((note) => [note.id, note.content]));
  messages.forEach((message, index) => {
    if (message.role !== "user" || typeof message.content === "string") return;
    if (!message.content.some((block) => block.type === "tool_result" && byId.has(block.tool_use_id))) return;
    messages[index] = {
      ...message,
      content: message.content.map((block): ContentBlockParam => {
        const note = block.type === "tool_result" ? byId.get(block.tool_use_id) : undefined;
        return note === undefined || block.type !== "tool_result" ? block : { ...block, content: note };
      }),
    };
  });
}
