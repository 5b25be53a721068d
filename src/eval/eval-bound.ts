/**
 * The eval's static bound, checked against `--budget` before anything is spent (as `prosec run` checks
 * a run's): the eval program's bound with each case's inputs, summed over the cases still to run, plus
 * what the eval's runs spent already.
 */
import {
  boundDollars,
  evaluate,
  inputValues,
  totalCalls,
  priceOf,
  type PriceTable,
  formatBudget,
} from "../../runtime/cost.js";
import type { ProgramCost, Value } from "../../runtime/index.js";

export interface CaseBound {
  /** Dollars of one case's bound; Infinity when unbounded; undefined when it depends on what the run reads. */
  readonly dollars: number | undefined;
}

export function caseBound(
  cost: ProgramCost | undefined,
  inputs: { readonly [name: string]: Value },
  prices: PriceTable,
  modelId: (name: string) => string,
): CaseBound {
  if (cost === undefined) return { dollars: undefined };
  return { dollars: boundDollars(cost, inputValues(cost, inputs), prices, modelId).dollars };
}

/** Model calls of one case's bound, when known. */
export function caseCalls(
  cost: ProgramCost | undefined,
  inputs: { readonly [name: string]: Value },
): number | undefined {
  if (cost === undefined) return undefined;
  return evaluate(totalCalls(cost), inputValues(cost, inputs));
}

/**
 * Why the eval may not start within `budget`, or undefined. A bound that is unknown or unbounded for
 * some case starts (the runs' meters enforce the budget as they go), as it does for `prosec run`.
 */
export function evalRefusal(
  cost: ProgramCost | undefined,
  pending: readonly { readonly inputs: { readonly [name: string]: Value } }[],
  spent: number,
  budget: number,
  prices: PriceTable,
  modelId: (name: string) => string,
): string | undefined {
  if (cost === undefined) return undefined;
  const unpriced = [...new Set(Object.keys(cost.tokens).map(modelId))].filter(
    (id) => priceOf(id, prices) === undefined,
  );
  if (unpriced.length > 0)
    return `The budget cannot be kept: no price for ${unpriced.join(", ")}. Give one, e.g. PROSEC_PRICES="${unpriced[0]}=input/output" (dollars per million tokens).`;
  let dollars = spent;
  let calls = 0;
  for (const entry of pending) {
    const bound = caseBound(cost, entry.inputs, prices, modelId).dollars;
    if (bound === undefined || !Number.isFinite(bound)) return undefined;
    dollars += bound;
    calls += caseCalls(cost, entry.inputs) ?? 0;
  }
  if (dollars <= budget) return undefined;
  const already = spent > 0 ? ` (${formatBudget(spent)} spent already)` : "";
  return `The eval's bound, about ${formatBudget(dollars)} for ${pending.length} ${pending.length === 1 ? "case" : "cases"}${already} (${calls} model calls at most), is over the budget of ${formatBudget(budget)}.`;
}
