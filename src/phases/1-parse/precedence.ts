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

/**
 * The tree an operand list was built into, and its right spine: the binary nodes this list made, from
 * the root down its right edge (a parenthesized operand's own nodes are not in it).
 */
interface Built {
  readonly tree: ast.Expression;
  readonly spine: readonly ast.BinaryExpression[];
}

/**
 * The parser completes an expression after every operand of a chain (`1 + 1 + …`), each time with the
 * list one operand longer. Each tree is kept by its list, so the next extends it along its right spine
 * instead of ordering the whole list again: a chain of n operands costs O(n), not O(n²).
 */
const built = new WeakMap<Cons<Operand | Token>, Built>();

/** Builds the tree of a flat `operand (operator operand)*` list, all operators left-associative. */
export function operation(list: Cons<Operand | Token>): ast.Expression {
  // Most expressions are a single operand: nothing to order.
  const single = list.previous === null ? (list.item as Operand) : undefined;
  if (single !== undefined && single.kind !== "NotPrefix") {
    built.set(list, { tree: single, spine: [] });
    return single;
  }
  const prefix = list.previous?.previous;
  const before = prefix === null || prefix === undefined ? undefined : built.get(prefix);
  const last = list.item as Operand;
  if (before !== undefined && last.kind !== "NotPrefix") {
    const extended = extend(before, list.previous!.item as Token, last);
    built.set(list, extended);
    return extended.tree;
  }
  return ordered(list);
}

/**
 * `before`'s tree with `operator operand` appended, as ordering the whole list would build it. Going down
 * the right spine precedences rise; the new operator takes as its left side the first spine node that
 * binds at least as tight (left associativity), or else the last operand, and the nodes above it are
 * copied with their new right side.
 */
function extend(before: Built, operator: Token, operand: ast.Expression): Built {
  const level = precedence[operator.text]!;
  let kept = before.spine.findIndex((node) => precedence[node.operator]! >= level);
  if (kept === -1) kept = before.spine.length;
  const left =
    kept === 0 ? before.tree : kept < before.spine.length ? before.spine[kept]! : before.spine[kept - 1]!.right;
  let node = binary(left, operator, operand);
  const spine = [node];
  for (let index = kept - 1; index >= 0; index--) {
    const above = before.spine[index]!;
    node = { ...above, right: node, loc: span(above.left, node) };
    spine.unshift(node);
  }
  return { tree: node, spine };
}

/** The whole list ordered by precedence climbing: a list with `not` in it is ordered whole every time. */
function ordered(list: Cons<Operand | Token>): ast.Expression {
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
