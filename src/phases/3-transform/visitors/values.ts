/** Plain values: names, literals, lists, records, field access and operators. */
import type * as ast from "../../../ast.js";
import { numberLiteral, recordField, stringLiteral } from "../literals.js";
import { awaited, composed, inert, nullValue, type Lowered } from "../lowered.js";
import type { Lowering } from "../lowering.js";
import { site } from "../site.js";
import type { LowerState } from "../state.js";
import { binaryHelper, isComparison } from "./operators.js";
import { string } from "./strings.js";

export function identifier(node: ast.Identifier, _state: LowerState, lowering: Lowering): Lowered {
  return inert(reference(node, lowering));
}

export function stringValue(node: ast.StringLiteral, state: LowerState, lowering: Lowering): Lowered {
  return string(node, state, lowering);
}

export function number(node: ast.NumberLiteral): Lowered {
  return inert(numberLiteral(node.raw));
}

export function boolean(node: ast.BooleanLiteral): Lowered {
  return inert(String(node.value));
}

export function nullLiteral(): Lowered {
  return nullValue;
}

export function array(node: ast.ArrayExpression, state: LowerState, lowering: Lowering): Lowered {
  const elements = node.elements.map((element) => lowering.value(element, state));
  return composed(`[${elements.map((element) => element.code).join(", ")}]`, elements);
}

export function object(node: ast.ObjectExpression, state: LowerState, lowering: Lowering): Lowered {
  // Keys are distinct: a record that gives one twice is P061.
  const keys = node.entries.map((entry) => (entry.key.kind === "Identifier" ? entry.key.name : entry.key.value));
  const values = node.entries.map((entry) => entryValue(entry, state, lowering));
  const entries = values.map((value, index) => recordField(keys[index]!, value.code));
  return composed(`{ ${entries.join(", ")} }`, values);
}

function entryValue(entry: ast.ObjectEntry, state: LowerState, lowering: Lowering): Lowered {
  if (entry.value) return lowering.value(entry.value, state);
  return entry.key.kind === "Identifier" ? inert(reference(entry.key, lowering)) : string(entry.key, state, lowering);
}

export function member(node: ast.MemberExpression, state: LowerState, lowering: Lowering): Lowered {
  const object = lowering.value(node.object, state).code;
  const group = lowering.fieldGroups.get(node);
  const fields = group === undefined ? "" : `, [${group.map(stringLiteral).join(", ")}]`;
  return awaited(
    `rt.field${typedRead(node, lowering)}(${site(node.property)}, ${object}, ${stringLiteral(node.property.name)}${fields})`,
  );
}

/** A read of a field a `returns:` type declares names its type (`rt.field<string | null>`). */
function typedRead(node: ast.MemberExpression | ast.IndexExpression, lowering: Lowering): string {
  return lowering.analysis.typed.of(node) === undefined ? "" : `<${lowering.expressionType(node)}>`;
}

/** `a[i]`: the runtime reads a number as an item's position, anything else as a field name. */
export function index(node: ast.IndexExpression, state: LowerState, lowering: Lowering): Lowered {
  const object = lowering.value(node.object, state).code;
  return awaited(
    `rt.field${typedRead(node, lowering)}(${site(node)}, ${object}, ${lowering.value(node.index, state).code})`,
  );
}

export function binary(node: ast.BinaryExpression, state: LowerState, lowering: Lowering): Lowered {
  if (node.operator === "and" || node.operator === "or" || isComparison(node.operator)) {
    const condition = lowering.condition(node, state);
    return composed(`(${condition.code})`, [condition]);
  }
  const helper = binaryHelper(node.operator, lowering);
  const left = lowering.value(node.left, state);
  const right = lowering.value(node.right, state);
  return composed(`${helper}(${left.code}, ${right.code})`, [left, right]);
}

export function unary(node: ast.UnaryExpression, state: LowerState, lowering: Lowering): Lowered {
  if (node.operator === "not") {
    const condition = lowering.condition(node.operand, state);
    return composed(`!(${condition.code})`, [condition]);
  }
  const operand = lowering.value(node.operand, state);
  return composed(`${lowering.helper("subtract")}(0, ${operand.code})`, [operand]);
}

/** A name's TypeScript name; an agent used as a value (`context: captain`) stands for the agent's name. */
export function reference(identifier: ast.Identifier, lowering: Lowering): string {
  const symbol = lowering.analysis.references.get(identifier);
  if (symbol && lowering.analysis.blockBindingReads.has(identifier)) return `${lowering.lastCallName(symbol)}.value`;
  if (symbol) return lowering.symbolName(symbol);
  const agent = lowering.analysis.agentValues.get(identifier);
  if (agent) return stringLiteral(agent.name.name);
  throw new Error(
    `internal: \`${identifier.name}\` at ${identifier.loc.start.line}:${identifier.loc.start.column} was not resolved by analysis`,
  );
}
