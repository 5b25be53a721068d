import type { Usage } from "../types.js";

type Totals = { inputTokens: number; outputTokens: number; cacheWriteTokens: number; cacheReadTokens: number };

/** Token usage summed per model, for the `run-end` event. */
export class UsageTotals {
  private readonly byModel = new Map<string, Totals>();

  add(usage: readonly Usage[]): void {
    for (const entry of usage) {
      const total = this.byModel.get(entry.model) ?? {
        inputTokens: 0,
        outputTokens: 0,
        cacheWriteTokens: 0,
        cacheReadTokens: 0,
      };
      total.inputTokens += entry.inputTokens;
      total.outputTokens += entry.outputTokens;
      total.cacheWriteTokens += entry.cacheWriteTokens ?? 0;
      total.cacheReadTokens += entry.cacheReadTokens ?? 0;
      this.byModel.set(entry.model, total);
    }
  }

  /** Per model; the cache fields only where the model cached something. */
  list(): Usage[] {
    return [...this.byModel].map(([model, total]) => usageOf(model, total));
  }
}

function usageOf(model: string, total: Totals): Usage {
  return {
    model,
    inputTokens: total.inputTokens,
    outputTokens: total.outputTokens,
    ...(total.cacheWriteTokens === 0 ? {} : { cacheWriteTokens: total.cacheWriteTokens }),
    ...(total.cacheReadTokens === 0 ? {} : { cacheReadTokens: total.cacheReadTokens }),
  };
}

/** One line, at most `limit` characters: how a binding shows in the narration. */
export function preview(text: string, limit = 100): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= limit ? line : `${line.slice(0, limit - 1)}…`;
}
