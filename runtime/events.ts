import type { RunEvent, Usage } from "./types.js";

/** A RunEvent before the run stamps its time. */
export type PendingEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, "time"> : never) : never;

/** Token usage summed per model, for the `run-end` event. */
export class UsageTotals {
  private readonly byModel = new Map<string, { inputTokens: number; outputTokens: number }>();

  add(usage: readonly Usage[]): void {
    for (const entry of usage) {
      const total = this.byModel.get(entry.model) ?? { inputTokens: 0, outputTokens: 0 };
      total.inputTokens += entry.inputTokens;
      total.outputTokens += entry.outputTokens;
      this.byModel.set(entry.model, total);
    }
  }

  list(): Usage[] {
    return [...this.byModel].map(([model, total]) => ({ model, ...total }));
  }
}

/** One line, at most `limit` characters: how a binding shows in the narration. */
export function preview(text: string, limit = 100): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= limit ? line : `${line.slice(0, limit - 1)}…`;
}
