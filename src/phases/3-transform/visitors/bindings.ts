/** Statements that bind a name: `input`, `output`, `let` / `const` / assignment. */
import { destructuredOutput } from "../../2-analyze/index.js";
import type * as ast from "../../../ast.js";
import { inputQuestion, type SymbolInfo } from "../../2-analyze/index.js";
import { b } from "../builders.js";
import { numberLiteral, stringLiteral } from "../literals.js";
import { awaited, inert, nullValue, type Lowered } from "../lowered.js";
import type { Lowering, StatementOutcome } from "../lowering.js";
import { site } from "../site.js";
import type { LowerState } from "../state.js";
import { binaryHelper } from "./operators.js";
import { string, templateOf } from "./strings.js";

/**
 * An `input` is declared where it stands; one in a branch, a loop body or a `try` is declared
 * ahead like any binding there, since what follows (a loop's condition, a `catch`) may read it.
 */
export function input(
  statement: ast.InputDeclaration,
  state: LowerState,
  lowering: Lowering,
  wantValue: boolean,
): StatementOutcome {
  const symbol = lowering.analysis.references.get(statement.name);
  const name = symbol ? lowering.symbolName(symbol) : lowering.names.get("value", statement.name.name);
  const prompt =
    statement.prompt === null
      ? stringLiteral(inputQuestion(statement))
      : statement.prompt.kind === "String"
        ? string(statement.prompt, state, lowering).code
        : templateOf(statement.prompt.parts, state, lowering).code;
  const discretion = statement.prompt?.kind === "Discretion" ? ", discretion: true" : "";
  const fallback = statement.default === null ? "" : `, default: ${lowering.value(statement.default, state).code}`;
  const timeout = statement.modifiers.find((modifier) => modifier.key?.name === "timeout")?.value;
  const seconds =
    timeout === undefined
      ? ""
      : `, timeoutSeconds: ${timeout.kind === "Number" ? numberLiteral(timeout.raw) : `Number(${lowering.value(timeout, state).code})`}`;
  const request = `await rt.input(${site(statement)}, { name: ${stringLiteral(statement.name.name)}, prompt: ${prompt}${discretion}${fallback}${seconds} })`;
  if (symbol !== undefined && lowering.unnamed(symbol))
    return unnamedValue(awaited(request.slice("await ".length)), state, wantValue);
  if (symbol !== undefined && !state.declaredHere.has(symbol)) state.out.add(b.assign(name, request));
  else state.out.add(symbol?.reassigned ? b.let(name, "Value", request) : b.const(name, request));
  return { value: inert(name) };
}

/** `output name = value`, or `output value`; inside a block it is the block's result. */
export function output(
  statement: ast.OutputStatement,
  state: LowerState,
  lowering: Lowering,
  wantValue: boolean,
): StatementOutcome {
  const inBlock = enclosingBlock(statement, lowering);
  const value: Lowered = statement.name
    ? assign(statement.name, statement.value, state, lowering, true)
    : lowering.value(statement.value, state);
  if (inBlock) state.out.leave(`return ${value.code};`);
  return wantValue && !inBlock ? { value } : {};
}

export function binding(
  statement: ast.BindingStatement,
  state: LowerState,
  lowering: Lowering,
  wantValue: boolean,
): StatementOutcome {
  const slot = state.accumulators.get(statement);
  if (slot !== undefined && statement.value.kind === "Binary") {
    const part = lowering.value(statement.value.right, state);
    state.out.add(b.assign(slot, part.code));
    return wantValue ? { value: inert(slot) } : {};
  }
  const value = assign(statement.name, statement.value, state, lowering, wantValue);
  return wantValue ? { value } : {};
}

/**
 * `let { a, b } = value`: each name bound to the value's field of that name, as `value.a` reads it
 * (a record's field; from text, the model extracts it). The value is computed once.
 */
export function destructure(
  statement: ast.DestructureStatement,
  state: LowerState,
  lowering: Lowering,
  wantValue: boolean,
): StatementOutcome {
  // The names are not in scope inside the value (`const { a } = { a: **...** }` cannot show `a`): a
  // judgment there would read them before they are initialised.
  const declared = statement.names
    .map((name) => lowering.analysis.references.get(name))
    .filter(
      (symbol): symbol is SymbolInfo =>
        symbol !== undefined && state.declaredHere.has(symbol) && statement.names.includes(symbol.declaration),
    );
  const inner: LowerState =
    declared.length === 0 ? state : { ...state, declaring: new Set([...state.declaring, ...declared]) };
  let value = lowering.value(statement.value, inner);
  // A name is read as it is; anything else is computed once.
  if (statement.value.kind !== "Identifier") {
    const temporary = lowering.temporary("record");
    // Its type named: inferred, it would be circular in a loop whose judgment in the value shows a
    // name the loop assigns.
    state.out.add(b.const(temporary, value.code, lowering.expressionType(statement.value)));
    value = inert(temporary);
  }
  for (const name of statement.names) {
    const symbol = lowering.analysis.references.get(name);
    const tsName = lowering.identifierName(name);
    // A declared output of a `use`d program is read as its `Outputs` types it (a `returns:` type flows on).
    const declared = destructuredOutput(statement, name, lowering.analysis) !== undefined;
    const field = declared
      ? `${value.code}[${stringLiteral(name.name)}]`
      : `await rt.field(${site(name)}, ${value.code}, ${stringLiteral(name.name)})`;
    const bound = `rt.bind(${site(name)}, ${stringLiteral(name.name)}, ${field})`;
    if (symbol !== undefined && lowering.unnamed(symbol)) {
      state.out.add(b.expression(bound));
    } else if (symbol !== undefined && state.declaredHere.has(symbol) && symbol.declaration === name) {
      state.out.add(symbol.reassigned ? b.let(tsName, lowering.typeOf(symbol), bound) : b.const(tsName, bound));
    } else {
      state.out.add(b.assign(tsName, bound));
    }
  }
  return wantValue ? { value } : {};
}

/**
 * `name = value` as a declaration or an assignment, recording the binding for traces; the bound
 * value, read by its name. A binding nothing reads is written without its name (`unnamedValue`).
 */
function assign(
  identifier: ast.Identifier,
  value: ast.Expression,
  state: LowerState,
  lowering: Lowering,
  wantValue: boolean,
): Lowered {
  const symbol = lowering.analysis.references.get(identifier);
  const name = symbol ? lowering.symbolName(symbol) : lowering.names.get("value", identifier.name);
  const declaring = symbol !== undefined && state.declaredHere.has(symbol) && symbol.declaration === identifier;
  // A binding is not in scope inside its own initializer (`let x = **...**` cannot show `x`).
  const inner: LowerState = declaring ? { ...state, declaring: new Set([...state.declaring, symbol]) } : state;
  let lowered: Lowered;
  // `xs = xs + [r]`: the right side runs first, so concurrent branches never lose an append.
  if (value.kind === "Binary" && accumulates(value, symbol, lowering)) {
    const right = lowering.temporary("next");
    state.out.add(b.const(right, lowering.value(value.right, inner).code));
    lowered = inert(`${binaryHelper(value.operator, lowering)}(${name}, ${right})`);
  } else {
    lowered = lowering.value(value, inner, { binding: identifier.name });
  }
  const bound = `rt.bind(${site(identifier)}, ${stringLiteral(identifier.name)}, ${lowered.code})`;
  if (symbol !== undefined && lowering.unnamed(symbol))
    return unnamedValue({ code: bound, effectful: true, awaits: lowered.awaits }, state, wantValue).value ?? nullValue;
  if (declaring) {
    // `let` in the program is `const` here when nothing assigns the name again (the analysis knows).
    state.out.add(symbol.reassigned ? b.let(name, lowering.typeOf(symbol), bound) : b.const(name, bound));
  } else {
    state.out.add(b.assign(name, bound));
  }
  return inert(name);
}

/**
 * A binding nothing reads: what computes it is a statement of its own, or, when the list wants the
 * statement's value (its finish), that value itself (`return rt.bind(...)`, `const $final = rt.bind(...)`).
 */
function unnamedValue(computed: Lowered, state: LowerState, wantValue: boolean): StatementOutcome {
  if (wantValue) return { value: computed };
  state.out.add(b.expression(computed.code));
  return {};
}

/** `x = x + e` where computing `e` waits on the runtime. */
function accumulates(value: ast.BinaryExpression, symbol: SymbolInfo | undefined, lowering: Lowering): boolean {
  return (
    value.left.kind === "Identifier" &&
    symbol !== undefined &&
    lowering.analysis.references.get(value.left) === symbol &&
    containsAwait(value.right)
  );
}

/** Whether lowering an expression involves waiting on the runtime (anything but plain data and names). */
function containsAwait(expression: ast.Expression): boolean {
  switch (expression.kind) {
    case "Identifier":
    case "String":
    case "Number":
    case "Boolean":
    case "Null":
      return false;
    case "Array":
      return expression.elements.some(containsAwait);
    case "Binary":
      return containsAwait(expression.left) || containsAwait(expression.right);
    default:
      return true;
  }
}

function enclosingBlock(node: ast.Node, lowering: Lowering): boolean {
  for (let scope = lowering.analysis.scopeOf.get(node) ?? null; scope !== null; scope = scope.parent) {
    if (scope.kind === "block" && scope.node.kind === "Block") return true;
  }
  return false;
}
