/** `.prose` operators and the runtime helpers that compute them. */
import type * as ast from "../../../ast.js";
import type { Lowering } from "../lowering.js";

export function isComparison(operator: ast.BinaryOperator): boolean {
  return ["==", "!=", "<", "<=", ">", ">=", "is"].includes(operator);
}

/** The runtime helper for an arithmetic operator (`+` adds numbers, joins text and lists). */
export function binaryHelper(operator: ast.BinaryOperator, lowering: Lowering): string {
  switch (operator) {
    case "-":
      return lowering.helper("subtract");
    case "*":
      return lowering.helper("multiply");
    case "/":
      return lowering.helper("divide");
    default:
      return lowering.helper("add");
  }
}

/** Whether a condition holds a `**...**` judgment. */
export function judges(expression: ast.Expression): boolean {
  if (expression.kind === "Discretion") return true;
  if (expression.kind === "Binary") return judges(expression.left) || judges(expression.right);
  if (expression.kind === "Unary") return judges(expression.operand);
  return false;
}
