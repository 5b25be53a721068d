/**
 * The tool calls of a session that finished and changed something outside the conversation: what a
 * resume must never run again behind the user's back (a command, a file edited or written, a tool of
 * `RunOptions.tools`). Reading tools and memory updates are left out: running them again changes nothing.
 */
import type { TurnEvent } from "../types.js";

const WITHOUT_EFFECT: ReadonlySet<string> = new Set([
  "read_file",
  "list_files",
  "search_files",
  "fetch_url",
  "update_memory",
]);

/** `run_command \`make test\``, `edit_file \`src/a.ts\``: each finished call with an effect, in order. */
export function finishedEffects(events: readonly TurnEvent[]): string[] {
  const finished = new Set(events.flatMap((event) => (event.type === "tool-finished" ? [event.id] : [])));
  const effects: string[] = [];
  for (const event of events) {
    if (event.type === "restart") effects.length = 0;
    if (event.type !== "response") continue;
    for (const block of event.content) {
      if (block.type !== "tool_use" || !finished.has(block.id) || WITHOUT_EFFECT.has(block.name)) continue;
      effects.push(`${block.name} ${describe(block.input)}`);
    }
  }
  return effects;
}

function describe(input: unknown): string {
  const fields = (input ?? {}) as { command?: unknown; path?: unknown };
  const shown =
    typeof fields.command === "string"
      ? fields.command
      : typeof fields.path === "string"
        ? fields.path
        : JSON.stringify(input);
  const line = shown.replace(/\s+/g, " ");
  return `\`${line.length > 80 ? `${line.slice(0, 79)}…` : line}\``;
}
