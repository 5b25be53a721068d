/**
 * Conditions and judgments: boolean expressions where deterministic parts come first and
 * `**...**` judgments are asked only when they decide.
 */
import type * as ast from "../../../ast.js";
import type { SymbolInfo } from "../../2-analyze/types.js";
import { propertyKey } from "../literals.js";
import { awaited, type Lowered } from "../lowered.js";
import type { Lowering } from "../lowering.js";
import { site } from "../site.js";
import type { LowerState } from "../state.js";
import { isComparison, judges } from "./operators.js";
import { templateOf } from "./strings.js";

/** Symbol kinds that hold values a judgment may look at. */
const valueKinds: ReadonlySet<SymbolInfo["kind"]> = new Set([
  "let",
  "const",
  "assigned",
  "input",
  "output",
  "param",
  "loop-item",
  "loop-index",
  "pipe-item",
  "pipe-accumulator",
  "catch-error",
]);

/** A boolean expression for a condition. */
export function condition(expression: ast.Expression, state: LowerState, lowering: Lowering): string {
  switch (expression.kind) {
    case "Discretion":
      return judge(expression, state, lowering).code;
    case "Boolean":
      return String(expression.value);
    case "Unary":
      return expression.operator === "not"
        ? `!(${condition(expression.operand, state, lowering)})`
        : truthy(expression, state, lowering);
    case "Binary": {
      if (expression.operator !== "and" && expression.operator !== "or") {
        return isComparison(expression.operator)
          ? comparison(expression, state, lowering)
          : truthy(expression, state, lowering);
      }
      const [first, second] =
        judges(expression.left) && !judges(expression.right)
          ? [expression.right, expression.left]
          : [expression.left, expression.right];
      return `(${condition(first, state, lowering)} ${expression.operator === "and" ? "&&" : "||"} ${condition(second, state, lowering)})`;
    }
    default:
      return truthy(expression, state, lowering);
  }
}

function truthy(expression: ast.Expression, state: LowerState, lowering: Lowering): string {
  return `await rt.truthy(${site(expression)}, ${lowering.value(expression, state).code})`;
}

function comparison(expression: ast.BinaryExpression, state: LowerState, lowering: Lowering): string {
  const left = lowering.value(expression.left, state).code;
  const right = lowering.value(expression.right, state).code;
  switch (expression.operator) {
    case "==":
    case "is":
      return `${lowering.helper("equals")}(${left}, ${right})`;
    case "!=":
      return `!${lowering.helper("equals")}(${left}, ${right})`;
    default:
      return `${lowering.helper("compare")}(${left}, ${right}) ${expression.operator} 0`;
  }
}

/** `**...**` as a value: the model's yes or no. */
export function judge(discretion: ast.Discretion, state: LowerState, lowering: Lowering): Lowered {
  return awaited(
    `rt.judge(${site(discretion)}, ${templateOf(discretion.parts, state, lowering)}, ${judgeScope(discretion, state, lowering)})`,
  );
}

/** The bindings visible at `node`, by their `.prose` names: what a judgment may look at. */
export function judgeScope(node: ast.Discretion, state: LowerState, lowering: Lowering): string {
  const entries = new Map<string, string>();
  const before = state.judgeBefore ?? node.loc.start.offset;
  for (let scope = lowering.analysis.scopeOf.get(node) ?? null; scope !== null; scope = scope.parent) {
    for (const symbol of scope.symbols.values()) {
      if (
        !valueKinds.has(symbol.kind) ||
        entries.has(symbol.name) ||
        lowering.promoted.has(symbol) ||
        state.declaring.has(symbol)
      )
        continue;
      if (symbol.declaration.loc.start.offset > before) continue;
      entries.set(symbol.name, lowering.symbolName(symbol));
    }
  }
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{ ${sorted.map(([name, tsName]) => (propertyKey(name) === tsName ? tsName : `${propertyKey(name)}: ${tsName}`)).join(", ")} }`;
}
