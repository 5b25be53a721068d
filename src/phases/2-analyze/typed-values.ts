/**
 * Which bindings hold a typed result (`returns:`), and the checks of what the program reads off them:
 * `risks[0].titel` (or `let { titel } = risk`) names a field the type does not declare (P050, with did-you-mean), `risks.title`
 * reads a field of a list (P051). A binding is typed when everything bound to it is a session of one
 * and the same type; a `for` item over a typed list is typed by the list's items; a `map` / `pmap`
 * pipeline or a `for` / `parallel for` whose item ends in a typed session is a list of that type (with
 * `null` when a `continue` may end an item first). Text results are not checked:
 * reading structure off text keeps today's meaning (DIALECT.md, "Values at run time").
 */
import type * as ast from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeMessages as m } from "../../diagnostics/messages.js";
import { walk } from "../../walk.js";
import { sessionReturns, typeWords } from "./result-types.js";
import { closest } from "./suggest.js";
import type { Analysis, SymbolInfo, TypedValues } from "./types.js";

type Resolved = Pick<Analysis, "program" | "references" | "agents">;

const BOUND: ReadonlySet<SymbolInfo["kind"]> = new Set(["let", "const", "assigned", "output"]);

export function typedValues(analysis: Resolved): TypedValues {
  const symbols = new Map<SymbolInfo, ast.ResultType>();
  const of = (expression: ast.Expression): ast.ResultType | undefined => {
    switch (expression.kind) {
      case "Identifier": {
        const symbol = analysis.references.get(expression);
        return symbol === undefined ? undefined : symbols.get(symbol);
      }
      case "Session":
      case "Resume":
        return sessionReturns(expression, analysis.agents);
      case "Member": {
        const object = of(expression.object);
        if (object?.kind === "record")
          return object.fields.find((field) => field.key === expression.property.name)?.type;
        if (object?.kind === "list" && expression.property.name === "length")
          return { kind: "primitive", name: "number", loc: expression.loc };
        return undefined;
      }
      case "Index": {
        const object = of(expression.object);
        if (object?.kind === "list" && expression.index.kind === "Number") return object.element;
        const index = expression.index;
        if (object?.kind === "record" && index.kind === "String")
          return object.fields.find((field) => field.key === index.value)?.type;
        return undefined;
      }
      case "Pipeline":
        return pipelineType(expression, of);
      case "ForEach": {
        const item = itemType(expression.body, of);
        return item === undefined ? undefined : { kind: "list", element: item, loc: expression.loc };
      }
      default:
        return undefined;
    }
  };

  // Bindings first: every value bound to a name, typed only when all are the same type.
  const bound = new Map<SymbolInfo, Array<ast.ResultType | undefined>>();
  walk(analysis.program, (node) => {
    if ((node.kind !== "Binding" && node.kind !== "Output") || node.name === null) return;
    const symbol = analysis.references.get(node.name);
    if (symbol === undefined || !BOUND.has(symbol.kind)) return;
    const value = node.value;
    // `output risks = risks` reports the binding as it is.
    if (value.kind === "Identifier" && analysis.references.get(value) === symbol) return;
    const type =
      value.kind === "Session" || value.kind === "Resume" ? sessionReturns(value, analysis.agents) : undefined;
    bound.set(symbol, [...(bound.get(symbol) ?? []), type]);
  });
  for (const [symbol, types] of bound) {
    const first = types[0];
    if (first !== undefined && types.every((type) => type !== undefined && typeWords(type) === typeWords(first)))
      symbols.set(symbol, first);
  }
  // Then what is read off them, in program order: a pipeline bound to a name, a `for` item.
  walk(analysis.program, (node) => {
    if (
      (node.kind === "Binding" || node.kind === "Output") &&
      node.name !== null &&
      (node.value.kind === "Pipeline" || node.value.kind === "ForEach")
    ) {
      const symbol = analysis.references.get(node.name);
      const type = of(node.value);
      // Bound by this statement alone (`output x = x` binds nothing new).
      if (symbol !== undefined && type !== undefined && bound.get(symbol)?.length === 1 && BOUND.has(symbol.kind))
        symbols.set(symbol, type);
    }
    if (node.kind === "ForEach") {
      const collection = of(node.collection);
      const item = analysis.references.get(node.item);
      if (collection?.kind === "list" && item !== undefined && !item.reassigned) symbols.set(item, collection.element);
    }
  });
  return { symbols, of, item: (body) => itemType(body, of) };
}

/** A pipeline of `map` / `pmap` stages whose last item ends in a typed session: a list of that type. */
function pipelineType(
  node: ast.PipelineExpression,
  of: (expression: ast.Expression) => ast.ResultType | undefined,
): ast.ResultType | undefined {
  const last = node.stages.at(-1);
  if (last === undefined || node.stages.some((stage) => stage.operator !== "map" && stage.operator !== "pmap"))
    return undefined;
  const item = itemType(last.body, of);
  return item === undefined ? undefined : { kind: "list", element: item, loc: node.loc };
}

/**
 * The type of a `map` / `pmap` / `for` item's result: its last statement's value when that
 * is typed, or `null` when a `continue` ends the item first (DIALECT.md); none when a `return`
 * may leave it, since the item then gives no value of its own.
 */
function itemType(
  body: readonly ast.Statement[],
  of: (expression: ast.Expression) => ast.ResultType | undefined,
): ast.ResultType | undefined {
  const result = body.at(-1);
  const value =
    result?.kind === "ExpressionStatement"
      ? result.expression
      : result?.kind === "Output" || result?.kind === "Binding"
        ? result.value
        : undefined;
  const item = value === undefined ? undefined : of(value);
  if (item === undefined) return undefined;
  let continues = false;
  let returns = false;
  for (const statement of body)
    walk(statement, (node) => {
      continues ||= node.kind === "Continue";
      returns ||= node.kind === "Return";
    });
  if (returns) return undefined;
  return continues
    ? { kind: "union", members: [item, { kind: "primitive", name: "null", loc: item.loc }], loc: item.loc }
    : item;
}

/** P050 / P051: fields and items read off typed values that their types do not have. */
export function checkTypedAccess(analysis: Resolved, typed: TypedValues): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  walk(analysis.program, (node) => {
    if (node.kind === "Destructure") {
      // `let { titel } = risk`: each name reads the field of that name.
      const object = typed.of(node.value);
      if (object?.kind === "record")
        for (const name of node.names)
          if (!object.fields.some((field) => field.key === name.name)) {
            const keys = object.fields.map((field) => field.key);
            diagnostics.push(m.unknownTypedField(name.loc, name.name, describedType(object), closest(name.name, keys)));
          }
    }
    if (node.kind === "Member") {
      const object = typed.of(node.object);
      const name = node.property.name;
      if (object?.kind === "record" && !object.fields.some((field) => field.key === name)) {
        const keys = object.fields.map((field) => field.key);
        diagnostics.push(m.unknownTypedField(node.property.loc, name, describedType(object), closest(name, keys)));
      } else if (object?.kind === "list" && name !== "length")
        diagnostics.push(
          m.typedAccessMismatch(node.property.loc, `field ${"`"}${name}${"`"} read`, describedType(object)),
        );
    }
    if (node.kind === "Index") {
      const object = typed.of(node.object);
      if (object?.kind === "record" && node.index.kind === "Number")
        diagnostics.push(m.typedAccessMismatch(node.index.loc, `item ${node.index.raw} read`, describedType(object)));
      else if (object?.kind === "record" && node.index.kind === "String") {
        const key = node.index.value;
        if (!object.fields.some((field) => field.key === key))
          diagnostics.push(
            m.unknownTypedField(
              node.index.loc,
              key,
              describedType(object),
              closest(
                key,
                object.fields.map((field) => field.key),
              ),
            ),
          );
      } else if (object?.kind === "list" && node.index.kind === "String")
        diagnostics.push(
          m.typedAccessMismatch(
            node.index.loc,
            `field ${JSON.stringify(node.index.value)} read`,
            describedType(object),
          ),
        );
    }
  });
  return diagnostics;
}

/** A type in a message: shortened when long. */
export function describedType(type: ast.ResultType): string {
  const words = typeWords(type);
  return `\`${words.length > 80 ? `${words.slice(0, 77)}...` : words}\``;
}
