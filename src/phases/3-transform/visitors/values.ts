/** Plain values: names, literals, lists, records, field access and operators. */
import type * as ast from "../../../ast.js";
import { numberLiteral, propertyKey, stringLiteral } from "../literals.js";
import { awaited, inert, nullValue, type Lowered } from "../lowered.js";
import type { Lowering } from "../lowering.js";
import { distinctKeys } from "../settings.js";
import { site } from "../site.js";
import type { LowerState } from "../state.js";
import { binaryHelper, isComparison } from "./operators.js";
import { string } from "./strings.js";

export function identifier(node: ast.Identifier, _state: LowerState, lowering: Lowering): Lowered {
  return inert(reference(node, lowering));
}

export function stringValue(node: ast.StringLiteral, state: LowerState, lowering: Lowering): Lowered {
  return inert(string(node, state, lowering));
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
  return inert(`[${node.elements.map((element) => lowering.value(element, state).code).join(", ")}]`);
}

export function object(node: ast.ObjectExpression, state: LowerState, lowering: Lowering): Lowered {
  const keys = distinctKeys(
    node.entries.map((entry) => (entry.key.kind === "Identifier" ? entry.key.name : entry.key.value)),
  );
  const entries = node.entries.map(
    (entry, index) => `${propertyKey(keys[index]!)}: ${entryValue(entry, state, lowering)}`,
  );
  return inert(`{ ${entries.join(", ")} }`);
}

function entryValue(entry: ast.ObjectEntry, state: LowerState, lowering: Lowering): string {
  if (entry.value) return lowering.value(entry.value, state).code;
  return entry.key.kind === "Identifier" ? reference(entry.key, lowering) : string(entry.key, state, lowering);
}

export function member(node: ast.MemberExpression, state: LowerState, lowering: Lowering): Lowered {
  return awaited(
    `rt.field(${site(node.property)}, ${lowering.value(node.object, state).code}, ${stringLiteral(node.property.name)})`,
  );
}

export function index(node: ast.IndexExpression, state: LowerState, lowering: Lowering): Lowered {
  const object = lowering.value(node.object, state).code;
  return awaited(`rt.field(${site(node)}, ${object}, ${key(node.index, state, lowering)})`);
}

/** An index: a number picks an item, anything else is a field name. */
function key(index: ast.Expression, state: LowerState, lowering: Lowering): string {
  if (index.kind === "Number" || (index.kind === "String" && index.parts.every((part) => part.kind === "TextPart")))
    return lowering.value(index, state).code;
  let value = lowering.value(index, state).code;
  if (index.kind !== "Identifier") {
    const computed = value;
    value = lowering.temporary("key");
    state.out.add(`const ${value} = ${computed};`);
  }
  return `typeof ${value} === "number" ? ${value} : ${lowering.helper("text")}(${value})`;
}

export function binary(node: ast.BinaryExpression, state: LowerState, lowering: Lowering): Lowered {
  if (node.operator === "and" || node.operator === "or" || isComparison(node.operator))
    return inert(`(${lowering.condition(node, state)})`);
  const helper = binaryHelper(node.operator, lowering);
  return inert(`${helper}(${lowering.value(node.left, state).code}, ${lowering.value(node.right, state).code})`);
}

export function unary(node: ast.UnaryExpression, state: LowerState, lowering: Lowering): Lowered {
  if (node.operator === "not") return inert(`!(${lowering.condition(node.operand, state)})`);
  return inert(`${lowering.helper("subtract")}(0, ${lowering.value(node.operand, state).code})`);
}

/** A name's TypeScript name; an agent used as a value (`context: captain`) stands for the agent's name. */
export function reference(identifier: ast.Identifier, lowering: Lowering): string {
  const symbol = lowering.analysis.references.get(identifier);
  if (symbol) return lowering.symbolName(symbol);
  const agent = lowering.analysis.agentValues.get(identifier);
  if (agent) return stringLiteral(agent.name.name);
  throw new Error(
    `internal: \`${identifier.name}\` at ${identifier.loc.start.line}:${identifier.loc.start.column} was not resolved by analysis`,
  );
}
