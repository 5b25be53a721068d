/**
 * Model prices, in US dollars per million tokens, for cost estimates and budgets. The list prices by
 * family are the default; `PROSEC_PRICES` in the environment and `RunOptions.prices` add or override
 * entries (`RunOptions.prices` wins). A model id takes the entry named exactly like it, else the
 * longest entry its id contains (`sonnet` in `claude-sonnet-5-5`); a model matching none has no price.
 *
 * With prompt caching, tokens written to the cache cost 1.25 times the input price and tokens read
 * from it 0.1 times (Anthropic's five-minute cache).
 */
import type { ModelPrice, PriceTable, Usage } from "../types.js";

export type { ModelPrice, PriceTable } from "../types.js";

export const CACHE_WRITE_MULTIPLIER = 1.25;
export const CACHE_READ_MULTIPLIER = 0.1;

export const listPrices: PriceTable = Object.freeze({
  opus: { input: 5, output: 25 },
  sonnet: { input: 3, output: 15 },
  haiku: { input: 1, output: 5 },
});

/** Why a price table cannot be read. */
export class PriceError extends Error {}

/**
 * `PROSEC_PRICES`' syntax: `model=input/output` entries separated by commas, dollars per million
 * tokens: `my-model=0.5/2,opus=15/75`.
 */
export function parsePrices(text: string): PriceTable {
  const table: Record<string, ModelPrice> = {};
  for (const entry of text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")) {
    const match = /^([^=\s]+)\s*=\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(entry);
    if (match === null)
      throw new PriceError(
        `cannot read the price "${entry}": write model=input/output in dollars per million tokens, e.g. my-model=0.5/2`,
      );
    table[match[1]!] = { input: Number(match[2]), output: Number(match[3]) };
  }
  return table;
}

/** The list prices, then `PROSEC_PRICES`, then `prices` (each overriding the one before). */
export function priceTable(prices: PriceTable | undefined, env: NodeJS.ProcessEnv = process.env): PriceTable {
  const fromEnv = env["PROSEC_PRICES"];
  return { ...listPrices, ...(fromEnv === undefined ? {} : parsePrices(fromEnv)), ...prices };
}

export function priceOf(model: string, table: PriceTable): ModelPrice | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  const id = model.toLowerCase();
  let best: string | undefined;
  for (const key of Object.keys(table))
    if (id.includes(key.toLowerCase()) && (best === undefined || key.length > best.length)) best = key;
  return best === undefined ? undefined : table[best];
}

/** Dollars for one call's (or a run's) usage at this price. */
export function usageCost(usage: Usage, price: ModelPrice): number {
  const input =
    usage.inputTokens +
    (usage.cacheWriteTokens ?? 0) * CACHE_WRITE_MULTIPLIER +
    (usage.cacheReadTokens ?? 0) * CACHE_READ_MULTIPLIER;
  return (input * price.input + usage.outputTokens * price.output) / 1_000_000;
}

/** Dollars for usage across models; `unpriced` names the models without a price (left out of `dollars`). */
export function costOf(
  usage: readonly Usage[],
  table: PriceTable,
): { readonly dollars: number; readonly unpriced: readonly string[] } {
  let dollars = 0;
  const unpriced = new Set<string>();
  for (const entry of usage) {
    const price = priceOf(entry.model, table);
    if (price === undefined) unpriced.add(entry.model);
    else dollars += usageCost(entry, price);
  }
  return { dollars, unpriced: [...unpriced] };
}
