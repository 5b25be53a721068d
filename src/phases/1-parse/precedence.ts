/** Binary and unary operators: the grammar reads a flat operand list, ordered by precedence here. */
import type * as ast from "../../ast.js";
import { flatten, span, type Cons } from "./cons.js";
import type { Token } from "./token.js";

export function binary(left: ast.Expression, operator: Token, right: ast.Expression): ast.BinaryExpression {
  return { kind: "Binary", operator: operator.text as ast.BinaryOperator, left, right, loc: span(left, right) };
}

export function unary(operator: Token, operand: ast.Expression): ast.UnaryExpression {
  return { kind: "Unary", operator: operator.text as "not" | "-", operand, loc: span(operator, operand) };
}

/** `not x` before precedence is applied: `not` binds looser than comparisons (`not a == b`). */
export interface NotPrefix {
  readonly kind: "NotPrefix";
  readonly operator: Token;
  readonly operand: ast.Expression | NotPrefix;
  readonly loc: ast.SourceRange;
}

export function notPrefix(operator: Token, operand: ast.Expression | NotPrefix): NotPrefix {
  return { kind: "NotPrefix", operator, operand, loc: span(operator, operand) };
}

type Operand = ast.Expression | NotPrefix;

const precedence: Readonly<Record<string, number>> = {
  or: 1,
  and: 2,
  "==": 4,
  "!=": 4,
  "<": 4,
  "<=": 4,
  ">": 4,
  ">=": 4,
  is: 4,
  "+": 5,
  "-": 5,
  "*": 6,
  "/": 6,
};
const notPrecedence = 3;

/** Builds the tree of a flat `operand (operator operand)*` list, all operators left-associative. */
export function operation(list: Cons<Operand | Token>): ast.Expression {
  // Most expressions are a single operand: nothing to order.
  const single = list.previous === null ? (list.item as Operand) : undefined;
  if (single !== undefined && single.kind !== "NotPrefix") return single;
  const items = flatten(list);
  let position = 0;
  // `not` rewrites the operand slot it stands in, so work on a copy of the operands.
  const operands = items.filter((_, index) => index % 2 === 0) as Operand[];
  const operators = items.filter((_, index) => index % 2 === 1) as Token[];

  const climb = (minimum: number): ast.Expression => {
    let left = operand();
    while (position < operators.length && precedence[operators[position]!.text]! >= minimum) {
      const operator = operators[position]!;
      position++;
      const right = climb(precedence[operator.text]! + 1);
      left = binary(left, operator, right);
    }
    return left;
  };

  const operand = (): ast.Expression => {
    const current = operands[position]!;
    if (current.kind !== "NotPrefix") return current;
    operands[position] = current.operand;
    return unary(current.operator, climb(notPrecedence + 1));
  };

  return climb(0);
}
