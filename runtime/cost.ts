/**
 * The face for cost bounds and prices: what prosec's compiler and CLI (src/) read of the runtime's
 * cost model, and what an application that shows bounds may use (`prosec/runtime` re-exports the
 * evaluation of a program's bound). A program's bound (`program.cost`) evaluated with its inputs,
 * list prices and a price table from the environment, the models and their fallback chains a run
 * uses, and how a budget is written.
 */
export {
  boundDollars,
  evaluate,
  inputValues,
  totalCalls,
  type CallKind,
  type Count,
  type CostSymbol,
  type DollarBound,
  type ProgramCost,
  type SymbolValues,
  type UnboundedConstruct,
} from "./cost/bound.js";
export {
  costOf,
  listPrices,
  PriceError,
  priceOf,
  priceTable,
  type ModelPrice,
  type PriceTable,
} from "./model/prices.js";
export { defaultModelName, defaultModels, resolveModel } from "./model/models.js";
export { FallbackError, fallbackChains, ModelChains, parseFallback, type FallbackChains } from "./model/fallback.js";
export { abortedEstimateOf, BudgetExceeded, formatBudget } from "./cost/meter.js";
export { DEFAULT_REASKS } from "./model/unexpected-answers.js";
export { SKILL_DESCRIPTION_CHARS, SKILL_NAME_CHARS } from "./tools/skill-limits.js";
export type { ModelTable } from "./types.js";
