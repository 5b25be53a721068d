/**
 * `prosec run` on a terminal asks a person about each tool call an explicit `prompt` permission puts
 * to them: yes, no, or always (this agent's use of this tool, for the rest of the run).
 */
import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";
import type { PermissionRequest } from "../../runtime/index.js";

export interface Terminal {
  readonly input: Readable;
  readonly output: Writable;
}

/** An `onApproval` that asks on `terminal`; `before` runs first (the narration pauses). */
export function approvalQuestion(
  terminal: Terminal,
  signal: AbortSignal,
  before: () => void = () => {},
): (request: PermissionRequest) => Promise<boolean> {
  const always = new Set<string>();
  return async (request) => {
    const kind = `${request.agent ?? ""}\0${request.tool}`;
    if (always.has(kind)) return true;
    before();
    const who = request.agent === undefined ? "A session" : `Agent ${request.agent}`;
    const prompt = createInterface({ input: terminal.input, output: terminal.output, terminal: false });
    try {
      for (;;) {
        const answer = (
          await prompt.question(
            `${who} asks to use ${request.tool}: ${request.detail}\nAllow? [y]es, [n]o, [a]lways for this run: `,
            {
              signal,
            },
          )
        )
          .trim()
          .toLowerCase();
        if (answer === "y" || answer === "yes") return true;
        if (answer === "n" || answer === "no" || answer === "") return false;
        if (answer === "a" || answer === "always") {
          always.add(kind);
          return true;
        }
      }
    } finally {
      prompt.close();
    }
  };
}
