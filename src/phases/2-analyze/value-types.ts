/**
 * Type inference: what the program knows about each binding's value, for the types generated code
 * declares (`let x: string = ...`, `Outputs`). A session's result is text, a judgment a boolean, a
 * literal its shape, a program call's result the called program's `Outputs`, a `map`, `pmap`, `for`
 * or `parallel for` of typed sessions the list of their type; a name bound more than
 * once has the union of what is bound to it. Everything else, and wherever the runtime extracts
 * structure from text (`for x in parts`, `a.b`, block results), is `Value`.
 *
 * The types are never narrower than what TypeScript infers for the lowered code: a binding that may
 * be read before it is bound (declared ahead as `null`) includes `null`. One declared ahead of the
 * branches that bind it, but bound on every path to each read (every option of a `choice`), does
 * not: lowering declares it without a value, and TypeScript checks the same (definite-assignment.ts).
 */
import type * as ast from "../../ast.js";
import { walk } from "../../walk.js";
import { readBeforeBound } from "./definite-assignment.js";
import { sessionReturns } from "./result-types.js";
import type { Analysis, SymbolInfo } from "./types.js";

export type ValueType =
  | { readonly kind: "string" | "number" | "boolean" | "null" | "value" }
  /** A string literal type, from a `returns:` (`"low" | "high"`). */
  | { readonly kind: "literal"; readonly value: string }
  | { readonly kind: "list"; readonly element: ValueType | null }
  | {
      readonly kind: "record";
      readonly fields: ReadonlyArray<readonly [string, ValueType]>;
      /** Keys a `returns:` type lets the answer leave out (`detail?: string`). */
      readonly optional?: readonly string[];
    }
  | { readonly kind: "union"; readonly members: readonly ValueType[] }
  /** The `Outputs` of the program imported as `program`. */
  | { readonly kind: "outputs"; readonly program: string }
  /** One output of it (`let { risks } = review(plan: p)`): its type in that program's `Outputs`. */
  | { readonly kind: "output"; readonly program: string; readonly field: string };

const simple = (kind: "string" | "number" | "boolean" | "null" | "value"): ValueType => ({ kind });
export const valueType = simple("value");
const nullType = simple("null");

export interface ValueTypes {
  /** The type of what a binding holds wherever it is read (its declared type). */
  symbol(symbol: SymbolInfo): ValueType;
  /** The type of an expression's value (an input's default). */
  expression(expression: ast.Expression): ValueType;
  /**
   * Whether a binding lowering declares ahead of where it is bound is bound on every path to each
   * read: it is then declared without a value (`let x: string;`), and its type has no `null`.
   */
  boundBeforeRead(symbol: SymbolInfo): boolean;
}

/** Symbol kinds bound by statements of the program (the others are parameters, loop items, ...). */
const boundKinds: ReadonlySet<SymbolInfo["kind"]> = new Set(["let", "const", "assigned", "output", "input"]);

/**
 * Infers the bindings' types. `declaredAhead` says which bindings lowering declares ahead of their
 * binding (as `null`), beyond those bound more than once or below their scope's own statements.
 */
export function inferValueTypes(
  analysis: Analysis,
  declaredAhead: (symbol: SymbolInfo) => boolean,
  /** Bindings whose reads lowering gives as a `Value` (a block's binding read outside it). */
  readAsValue: (symbol: SymbolInfo) => boolean,
): ValueTypes {
  const assignments = new Map<SymbolInfo, ast.Expression[]>();
  // Names destructured from a `use`d program's declared outputs: typed by its `Outputs`.
  const outputFields = new Map<SymbolInfo, ValueType>();
  // Bindings whose value the runtime gives as any `Value`: inputs, branches of a race or under `continue` / `ignore`.
  const opaque = new Set<SymbolInfo>();
  const boundWhereDeclared = new Set<SymbolInfo>();
  const parents = new Map<ast.Node, ast.Node | null>();
  walk(analysis.program, (node, parent) => {
    parents.set(node, parent);
    if (node.kind === "Destructure") {
      for (const name of node.names) {
        const symbol = analysis.references.get(name);
        const field = destructuredOutput(node, name, analysis);
        if (symbol !== undefined && field !== undefined) outputFields.set(symbol, field);
        else if (symbol) opaque.add(symbol);
      }
      return;
    }
    if (node.kind !== "Binding" && node.kind !== "Output" && node.kind !== "Input") return;
    const symbol = node.name ? analysis.references.get(node.name) : undefined;
    if (symbol === undefined || !boundKinds.has(symbol.kind)) return;
    if (node.kind === "Input") opaque.add(symbol);
    else if (parent?.kind === "Parallel" && !failFastAll(parent, analysis)) opaque.add(symbol);
    else assignments.set(symbol, [...(assignments.get(symbol) ?? []), node.value]);
    if (node.name !== symbol.declaration) return;
    // Declared where it is bound: a statement of its scope's own list, or a `parallel:` branch
    // (bound once) of one.
    const direct =
      parent?.kind === "Parallel"
        ? !symbol.reassigned &&
          !readBeforeJoin(parent, analysis) &&
          parents.get(parents.get(parent) ?? parent) === symbol.scope.node
        : parent === symbol.scope.node;
    if (direct && symbol.scope.kind !== "loop" && !declaredAhead(symbol)) boundWhereDeclared.add(symbol);
  });

  // Declared ahead (as lowering's statement lists do for a name bound in branches), yet maybe bound before every read.
  // An opaque binding's type is `Value` whatever binds it, but where it is bound is known all the same.
  const tracked = new Set(
    [...assignments.keys(), ...opaque].filter(
      (symbol) =>
        !boundWhereDeclared.has(symbol) &&
        !declaredAhead(symbol) &&
        !readAsValue(symbol) &&
        symbol.scope.kind !== "loop",
    ),
  );
  const unboundReads = readBeforeBound(analysis, tracked);
  // A binding bound where it is declared is bound before every read too, should lowering declare it
  // ahead all the same (a program run in parts declares its bindings ahead of the parts).
  const boundBeforeRead = (symbol: SymbolInfo): boolean =>
    boundWhereDeclared.has(symbol) || (tracked.has(symbol) && !unboundReads.has(symbol));

  const known = new Map<SymbolInfo, ValueType>();
  const inProgress = new Set<SymbolInfo>();
  const symbolType = (symbol: SymbolInfo): ValueType => {
    const cached = known.get(symbol);
    if (cached) return cached;
    const field = outputFields.get(symbol);
    if (field !== undefined) {
      // Bound nowhere else (`output risks = risks` reports it as it is): the called program's type.
      const others = (assignments.get(symbol) ?? []).filter(
        (value) => value.kind !== "Identifier" || analysis.references.get(value) !== symbol,
      );
      return others.length === 0 && !readAsValue(symbol) ? field : valueType;
    }
    if (!boundKinds.has(symbol.kind) || opaque.has(symbol) || readAsValue(symbol) || inProgress.has(symbol))
      return valueType;
    inProgress.add(symbol);
    // `x = x` (an output named as the binding it reports) binds nothing new.
    const types = (assignments.get(symbol) ?? [])
      .filter((value) => value.kind !== "Identifier" || analysis.references.get(value) !== symbol)
      .map(expressionType);
    inProgress.delete(symbol);
    // Bound some way not modelled here (a destructuring's field): whatever the runtime gives.
    const bound = boundWhereDeclared.has(symbol) || boundBeforeRead(symbol);
    const type = types.length === 0 ? valueType : union(bound ? types : [...types, nullType]);
    known.set(symbol, type);
    return type;
  };

  const expressionType = (expression: ast.Expression): ValueType => {
    switch (expression.kind) {
      case "String":
        return simple("string");
      case "Session":
      case "Resume": {
        const returns = sessionReturns(expression, analysis.agents);
        return returns === undefined ? simple("string") : resultValueType(returns);
      }
      case "Discretion":
        return simple("boolean");
      case "Number":
        return simple("number");
      case "Boolean":
        return simple("boolean");
      case "Null":
        return nullType;
      case "Identifier": {
        const symbol = analysis.references.get(expression);
        return symbol ? symbolType(symbol) : valueType;
      }
      case "Array":
        return shallow({
          kind: "list",
          element: expression.elements.length === 0 ? null : union(expression.elements.map(expressionType)),
        });
      case "Object":
        return shallow(recordType(expression));
      case "Member":
      case "Index": {
        // A field or item a `returns:` type declares: its type, or null (past the end, an optional key left out).
        const typed = analysis.typed.of(expression);
        if (typed === undefined) return valueType;
        const lengthOfList =
          expression.kind === "Member" &&
          typed.kind === "primitive" &&
          typed.name === "number" &&
          expression.property.name === "length" &&
          analysis.typed.of(expression.object)?.kind === "list";
        return lengthOfList ? resultValueType(typed) : union([resultValueType(typed), nullType]);
      }
      case "Pipeline":
      case "ForEach": {
        // A `map` / `pmap` / `for` whose items end in a typed session: the list of them.
        const typed = analysis.typed.of(expression);
        return typed === undefined ? valueType : resultValueType(typed);
      }
      case "ProgramCall": {
        // A program that declares no output gives its final result (DIALECT.md, the `use` rule), any value.
        const outputs = analysis.importedOutputs.get(expression.callee.name);
        return analysis.imports.has(expression.callee.name) && outputs?.length !== 0
          ? { kind: "outputs", program: expression.callee.name }
          : valueType;
      }
      default:
        return valueType;
    }
  };

  const recordType = (record: ast.ObjectExpression): ValueType => {
    const fields: Array<readonly [string, ValueType]> = [];
    for (const entry of record.entries) {
      const key = entry.key.kind === "Identifier" ? entry.key.name : entry.key.value;
      if (fields.some(([known]) => known === key)) return valueType;
      const value = entry.value
        ? expressionType(entry.value)
        : entry.key.kind === "Identifier"
          ? expressionType(entry.key)
          : simple("string");
      fields.push([key, value]);
    }
    return { kind: "record", fields };
  };

  return { symbol: symbolType, expression: expressionType, boundBeforeRead };
}

/**
 * The output a destructured name reads, when the value is a call of a `use`d program that declares
 * it: `let { risks } = review(plan: p)` reads `review`'s output `risks`.
 */
export function destructuredOutput(
  node: ast.DestructureStatement,
  name: ast.Identifier,
  analysis: Pick<Analysis, "importedOutputs">,
): ValueType | undefined {
  if (node.value.kind !== "ProgramCall") return undefined;
  const program = node.value.callee.name;
  const outputs = analysis.importedOutputs.get(program);
  return outputs?.includes(name.name) ? { kind: "output", program, field: name.name } : undefined;
}

/** A `returns:` type as the type generated code declares: exactly it, at any depth (it is written, not inferred). */
export function resultValueType(type: ast.ResultType): ValueType {
  switch (type.kind) {
    case "primitive":
      return simple(type.name);
    case "literal":
      return { kind: "literal", value: type.value };
    case "list":
      return { kind: "list", element: resultValueType(type.element) };
    case "record": {
      const optional = type.fields.filter((field) => field.optional).map((field) => field.key);
      return {
        kind: "record",
        fields: type.fields.map((field) => [field.key, resultValueType(field.type)] as const),
        ...(optional.length === 0 ? {} : { optional }),
      };
    }
    case "union":
      return union(type.members.map(resultValueType));
  }
}

/**
 * Lists and records nested deeper than this are `Value`: TypeScript gives up comparing a deeply
 * nested literal type with `Value` ("excessive stack depth"), and nobody reads such a type.
 */
const MAX_SHAPE_DEPTH = 6;

function shallow(type: ValueType): ValueType {
  return depth(type) > MAX_SHAPE_DEPTH ? valueType : type;
}

function depth(type: ValueType): number {
  switch (type.kind) {
    case "list":
      return 1 + (type.element ? depth(type.element) : 0);
    case "record":
      return 1 + Math.max(0, ...type.fields.map(([, field]) => depth(field)));
    case "union":
      return Math.max(0, ...type.members.map(depth));
    default:
      return 0;
  }
}

/**
 * Whether a branch of the `parallel:` reads a name a branch binds: it then reads it before the join
 * (`null`, or an earlier value), so lowering declares the names ahead instead of at the join. A
 * judgment reads every binding in scope.
 */
export function readBeforeJoin(node: ast.ParallelExpression, analysis: Analysis): boolean {
  const names = node.branches.flatMap((branch) =>
    (branch.kind === "Binding" || branch.kind === "Output") && branch.name ? [branch.name] : [],
  );
  const symbols = new Set(names.map((name) => analysis.references.get(name)));
  let read = false;
  walk(node, (child) => {
    if (child.kind === "Discretion") read = true;
    if (child.kind === "Identifier" && !names.includes(child) && symbols.has(analysis.references.get(child)))
      read = true;
    return !read;
  });
  return read;
}

/** A default `parallel:` under `fail-fast`: each branch's value is what it returns (no error record, no `null`). */
function failFastAll(node: ast.ParallelExpression, analysis: Analysis): boolean {
  const plan = analysis.parallelPlans.get(node);
  return plan?.join === "all" && plan.onFail === "fail-fast";
}

/** The union of types, flattened and without repeats; `Value` absorbs everything. */
export function union(types: readonly ValueType[]): ValueType {
  const members: ValueType[] = [];
  const seen = new Set<string>();
  for (const type of types.flatMap((type) => (type.kind === "union" ? type.members : [type]))) {
    if (type.kind === "value") return valueType;
    const key = JSON.stringify(type);
    if (seen.has(key)) continue;
    seen.add(key);
    members.push(type);
  }
  return members.length === 1 ? members[0]! : { kind: "union", members };
}
