/**
 * Conditions and judgments: boolean expressions where deterministic parts come first and
 * `**...**` judgments are asked only when they decide.
 */
import type * as ast from "../../../ast.js";
import { judgedKinds } from "../../2-analyze/index.js";
import { bindingsFrame } from "../program-bindings.js";
import { recordField, stringLiteral } from "../literals.js";
import { awaited, composed, inert, type Lowered } from "../lowered.js";
import type { Lowering } from "../lowering.js";
import { site } from "../site.js";
import type { LowerState } from "../state.js";
import { isComparison, judges } from "./operators.js";
import { templateOf } from "./strings.js";

/** A boolean expression for a condition. */
export function condition(expression: ast.Expression, state: LowerState, lowering: Lowering): Lowered {
  switch (expression.kind) {
    case "Discretion":
      return judge(expression, state, lowering);
    case "Boolean":
      return inert(String(expression.value));
    case "Unary": {
      if (expression.operator !== "not") return truthy(expression, state, lowering);
      const operand = condition(expression.operand, state, lowering);
      return composed(`!(${operand.code})`, [operand]);
    }
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
      const left = condition(first, state, lowering);
      const right = condition(second, state, lowering);
      return composed(`(${left.code} ${expression.operator === "and" ? "&&" : "||"} ${right.code})`, [left, right]);
    }
    default:
      return truthy(expression, state, lowering);
  }
}

function truthy(expression: ast.Expression, state: LowerState, lowering: Lowering): Lowered {
  return awaited(`rt.truthy(${site(expression)}, ${lowering.value(expression, state).code})`);
}

function comparison(expression: ast.BinaryExpression, state: LowerState, lowering: Lowering): Lowered {
  const left = lowering.value(expression.left, state);
  const right = lowering.value(expression.right, state);
  const operands = `(${left.code}, ${right.code})`;
  switch (expression.operator) {
    case "==":
    case "is":
      return composed(`${lowering.helper("equals")}${operands}`, [left, right]);
    case "!=":
      return composed(`!${lowering.helper("equals")}${operands}`, [left, right]);
    default:
      return composed(`${lowering.helper("compare")}${operands} ${expression.operator} 0`, [left, right]);
  }
}

/** `**...**` as a value: the model's yes or no. */
export function judge(discretion: ast.Discretion, state: LowerState, lowering: Lowering): Lowered {
  // The judge is told which construct asks; a judgment used as a value is a plain condition.
  const asker = state.asker === "condition" ? "" : `, ${stringLiteral(state.asker)}`;
  return awaited(
    `rt.judge(${site(discretion)}, ${templateOf(discretion.parts, state, lowering).code}, ${judgeScope(discretion, state, lowering)}${asker})`,
  );
}

/**
 * The bindings visible at `node`, by their `.prose` names: what a judgment may look at. The
 * program's own are named through the frame (`$bindings("last")`, see program-bindings.ts).
 */
export function judgeScope(node: ast.Discretion, state: LowerState, lowering: Lowering): string {
  const inner = new Map<string, string>();
  const before = state.judgeBefore ?? node.loc.start.offset;
  for (let scope = lowering.analysis.scopeOf.get(node) ?? null; scope?.parent; scope = scope.parent) {
    for (const symbol of scope.symbols.values()) {
      if (
        judgedKinds.has(symbol.kind) &&
        !inner.has(symbol.name) &&
        !lowering.promoted.has(symbol) &&
        !state.declaring.has(symbol) &&
        symbol.declaration.loc.start.offset <= before
      )
        inner.set(symbol.name, lowering.symbolName(symbol));
    }
  }
  // The program's own, through the frame; an inner binding hides one of the same name (the frame's helper lets it, too).
  const program = lowering.programBindings.visibleAt(before, state.declaring);
  if (program.through === undefined)
    for (const symbol of program.listed)
      if (!inner.has(symbol.name)) inner.set(symbol.name, lowering.symbolName(symbol));
  const sorted = [...inner].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const object = `{ ${sorted.map(([name, tsName]) => recordField(name, tsName)).join(", ")} }`;
  if (program.through === undefined) return object;
  return `${bindingsFrame}(${stringLiteral(program.through.name)}${sorted.length === 0 ? "" : `, ${object}`})`;
}
