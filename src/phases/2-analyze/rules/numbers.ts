import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule, RuleContext } from "./rule.js";

/**
 * A number literal a JavaScript number cannot hold (P043): its digits would run as `Infinity`, in
 * the generated module and in every count and bound computed from it.
 */
export const numberRange: Rule = {
  Number: (node, context) => checkNumberRange(node, context),
};

/**
 * P043 for one literal. The analyzer visits every expression; a modifier written out rather than
 * evaluated (`count:`, modifiers.ts) is checked by its rule with this.
 */
export function checkNumberRange(node: ast.NumberLiteral, context: RuleContext): void {
  if (!Number.isFinite(node.value)) context.report(m.numberTooLarge(node.loc, node.raw.replace(/\D/g, "").length));
}
