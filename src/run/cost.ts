/**
 * An estimate of what a run's tokens cost, from the price table (runtime/prices.ts: list prices by
 * model family, `PROSEC_PRICES`). Cache writes count 1.25x the input price, cache reads 0.1x. Models
 * without a price (a local model, a gateway's own names) are left out of the estimate.
 */
import { costOf, listPrices, PriceError, priceTable, type PriceTable } from "../../runtime/cost.js";
import type { Usage } from "../../runtime/index.js";

/** US dollars, or undefined when no model used has a known price. */
export function estimateCost(usage: readonly Usage[], prices: PriceTable = pricesForEstimates()): number | undefined {
  const { dollars, unpriced } = costOf(usage, prices);
  return unpriced.length === new Set(usage.map((entry) => entry.model)).size ? undefined : dollars;
}

/** The price table, or the list prices when `PROSEC_PRICES` cannot be read (the commands that take prices say so). */
export function pricesForEstimates(): PriceTable {
  try {
    return priceTable(undefined);
  } catch (error) {
    if (error instanceof PriceError) return listPrices;
    throw error;
  }
}
