/**
 * An estimate of what a run's tokens cost, from list prices per million tokens by model family.
 * Models of other families (a local model, a gateway's own names) are left out of the estimate.
 */
import type { Usage } from "../../runtime/index.js";

const PRICES: ReadonlyArray<{ readonly family: RegExp; readonly input: number; readonly output: number }> = [
  { family: /opus/i, input: 5, output: 25 },
  { family: /sonnet/i, input: 3, output: 15 },
  { family: /haiku/i, input: 1, output: 5 },
];

/** US dollars, or undefined when no model used has a known price. */
export function estimateCost(usage: readonly Usage[]): number | undefined {
  let total: number | undefined;
  for (const entry of usage) {
    const price = PRICES.find((candidate) => candidate.family.test(entry.model));
    if (price === undefined) continue;
    total = (total ?? 0) + (entry.inputTokens * price.input + entry.outputTokens * price.output) / 1_000_000;
  }
  return total;
}
