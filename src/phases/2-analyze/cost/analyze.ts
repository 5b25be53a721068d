/**
 * The static cost bound of a program (runtime/bound.ts's `ProgramCost`), from its analysed AST: the
 * worst case of every construct, as generated code runs it (`node-costs.ts` says how each costs).
 *
 * - Sequence adds; alternatives take the worst; repetition multiplies (`vector.ts`, in polynomials
 *   of the run's list sizes and counts: `poly.ts`).
 * - Recursion through blocks none of which sets `max_depth` is unbounded; with `max_depth`, it is
 *   unrolled to that depth. A call of an imported program adds that program's bound.
 * - Tokens: from the text of each prompt, the runtime's framing and tool definitions, and stated
 *   assumptions for what is only known at run time (`assumptions.ts`).
 */
import type { ProgramCost } from "../../../../runtime/cost.js";
import type { Analysis } from "../types.js";
import { CostEstimator, type CostOptions } from "./estimator.js";
import { nodeCosts } from "./node-costs.js";

export type { CostOptions } from "./estimator.js";

export function programCost(analysis: Analysis, options: CostOptions = {}): ProgramCost {
  const estimator = costEstimator(analysis, options);
  return estimator.result(estimator.cost(analysis.program, 0));
}

/** The estimator behind `programCost`, for callers that cost parts of a program (`prosec graph`). */
export function costEstimator(analysis: Analysis, options: CostOptions = {}): CostEstimator {
  return new CostEstimator(analysis, options, nodeCosts);
}
