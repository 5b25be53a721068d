import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule, RuleContext } from "./rule.js";

/** A count written as a number (`repeat 3`, `max: 10`, `retry: 2`) is a whole number of at least 1 (P011). */
export function checkPositiveCount(expression: ast.Expression, what: string, context: RuleContext): void {
  // A number too large to hold is P043 (numbers.ts), not a count's problem.
  const value = expression.kind === "Number" ? expression.value : undefined;
  if (value !== undefined && Number.isFinite(value) && (!Number.isInteger(value) || value < 1)) {
    context.report(m.notPositiveInteger(expression.loc, what));
  }
}

export const repeatCount: Rule = {
  Repeat: (node, context) => checkPositiveCount(node.count, "the repeat count", context),
};
