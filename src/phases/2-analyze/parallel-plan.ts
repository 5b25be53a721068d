/**
 * What a `parallel`'s modifiers say, read in one place: the modifier rule checks the words as
 * `joinWord` and `policyWord` read them, and value types, lowering and the flow graph use the plan
 * the analysis publishes (`Analysis.parallelPlans`), so that all of them read
 * `("any", count: 2, on-fail: "continue")` the same way.
 */
import {
  failurePolicies,
  isOneOf,
  joinStrategies,
  type FailurePolicy,
  type JoinStrategy,
} from "../../../runtime/vocabulary.js";
import type * as ast from "../../ast.js";

/** How a `parallel` joins its branches and what a failing branch does. */
export interface ParallelPlan {
  /** `"all"` when none is written. */
  readonly join: JoinStrategy;
  /** The successes an `"any"` join waits for; absent for one (and for the other joins, which take none). */
  readonly count?: number;
  /** `"fail-fast"` when none is written. */
  readonly onFail: FailurePolicy;
}

/**
 * The name a `parallel` branch binds, if any. Lowering destructures every named branch from the
 * joined result (`[a, b] = await Promise.all(...)`), so each is bound after the join whatever the
 * join or failure policy (a branch that lost a race or failed under `continue` binds what the
 * runtime gives for it): definite assignment follows that.
 */
export function branchBinding(branch: ast.Statement): ast.Identifier | null {
  return branch.kind === "Binding" || branch.kind === "Output" ? branch.name : null;
}

/** The join strategy a positional modifier names: quoted, `parallel ("first")`. */
export function joinWord(modifier: ast.Modifier): string | undefined {
  return modifier.value.kind === "String" ? modifier.value.value : undefined;
}

/** The failure policy an `on-fail:` names, quoted or bare (`on-fail: continue`). */
export function policyWord(modifier: ast.Modifier): string | undefined {
  const value = modifier.value;
  return value.kind === "String" ? value.value : value.kind === "Identifier" ? value.name : undefined;
}

/**
 * The plan of a `parallel`, the last modifier of each kind winning. Analysis reports a word that is
 * not one of the vocabulary's (a program with errors is never lowered); the flow graph of such a
 * program reads it as the default.
 */
export function parallelPlan(node: ast.ParallelExpression): ParallelPlan {
  let join: JoinStrategy = "all";
  let onFail: FailurePolicy = "fail-fast";
  let count: number | undefined;
  for (const modifier of node.modifiers) {
    const strategy = modifier.key === null ? joinWord(modifier) : undefined;
    const policy = modifier.key?.name === "on-fail" ? policyWord(modifier) : undefined;
    if (isOneOf(joinStrategies, strategy)) join = strategy;
    else if (isOneOf(failurePolicies, policy)) onFail = policy;
    else if (modifier.key?.name === "count" && modifier.value.kind === "Number") count = modifier.value.value;
  }
  return { join, ...(join === "any" && count !== undefined ? { count } : {}), onFail };
}
