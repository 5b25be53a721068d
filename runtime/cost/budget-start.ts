/**
 * Before a run's first call: whether its limits can be kept. A budget needs a price for every model
 * the program may use, and a program whose bound, with the run's inputs, is over the budget or
 * `maxCalls` is refused (unless `startOverBound`). A bound that depends on what the run reads, or
 * that is unbounded, starts: the meter (meter.ts) enforces the limits as the run goes.
 */
import { boundDollars, evaluate, inputValues, totalCalls } from "./bound.js";
import { priceOf } from "../model/prices.js";
import type { ModelChains } from "../model/fallback.js";
import { formatBudget, type Refusal } from "./meter.js";
import type { PriceTable, ProgramCost, RunOptions, Value } from "../types.js";

type Limits = Pick<RunOptions, "budget" | "maxCalls" | "startOverBound" | "reasks">;

/** What is wrong with the limits as given, if anything (the budget's, and those on a model's answers). */
export function invalidLimits({
  budget,
  maxCalls,
  reasks,
  continuations,
  maxTokens,
}: Limits & Pick<RunOptions, "continuations" | "maxTokens">): string | undefined {
  for (const [name, value, least] of [
    ["reasks", reasks, 0],
    ["continuations", continuations, 0],
    ["maxTokens", maxTokens, 1],
  ] as const)
    if (value !== undefined && !(Number.isInteger(value) && value >= least))
      return `${name} must be a whole number of at least ${least}, not ${value}.`;
  if (budget !== undefined && !(budget > 0 && Number.isFinite(budget)))
    return `The budget must be a positive number of dollars, not ${budget}.`;
  if (maxCalls !== undefined && !(Number.isInteger(maxCalls) && maxCalls >= 1))
    return `maxCalls must be a whole number of at least 1, not ${maxCalls}.`;
  return undefined;
}

/**
 * Why the run may not start within its limits, or undefined when it may. A model with a fallback
 * chain counts at its chain's most expensive model (fallback.ts), and every model of it needs a price.
 */
export function refusalBeforeStart(
  cost: ProgramCost | undefined,
  inputs: { readonly [name: string]: Value },
  limits: Limits,
  listed: PriceTable,
  modelId: (name: string) => string,
  chains?: ModelChains,
): Refusal | undefined {
  const { budget, maxCalls } = limits;
  if (cost === undefined || (budget === undefined && maxCalls === undefined)) return undefined;
  const prices = chains?.boundPrices(listed) ?? listed;
  const unpriced =
    budget === undefined
      ? []
      : Object.keys(cost.tokens)
          .map(modelId)
          .flatMap((id) => [
            ...(priceOf(id, listed) === undefined ? [id] : []),
            ...(chains?.unpricedMembers(id, listed) ?? []),
          ]);
  if (unpriced.length > 0)
    return {
      reason: `The budget cannot be kept: no price for ${unpriced.join(", ")}. Give one, e.g. PROSEC_PRICES="${unpriced[0]}=input/output" (dollars per million tokens).`,
      remedy: "price",
    };
  if (limits.startOverBound === true) return undefined;
  const values = inputValues(cost, inputs);
  const calls = evaluate(totalCalls(cost, limits.reasks), values);
  const dollars = boundDollars(cost, values, prices, modelId).dollars;
  if (budget !== undefined && dollars !== undefined && Number.isFinite(dollars) && dollars > budget)
    return {
      reason: `The program's bound, about ${formatBudget(dollars)}${calls === undefined ? "" : ` (${calls} model calls at most)`}, is over the budget of ${formatBudget(budget)}.`,
      remedy: "start-over-bound",
    };
  if (maxCalls !== undefined && calls !== undefined && Number.isFinite(calls) && calls > maxCalls)
    return {
      reason: `The program's bound, ${calls} model calls, is over the limit of ${maxCalls} model calls.`,
      remedy: "start-over-bound",
    };
  return undefined;
}
