/**
 * The keys of records whose shape the program writes: a record literal (`let r = { a: "x" }`), a
 * `parallel:` whose branches are all named (its value is the record of their names), and a field of
 * either that is one itself (`r.nested`). Reading a key that none of them gives (`r.b`, `{r.b}`,
 * `r["b"]`, `let { b } = r`) always gives `null`: P063, with the keys there are and did-you-mean.
 *
 * A binding has a shape only when everything bound to it has one (each `let`, assignment and
 * `output`); a key is known when any of them gives it, so a record bound in two branches with
 * different keys may be read by either's. Inputs, parameters, loop items and what sessions, blocks
 * and programs return are not known here: a field of text is read from the text at run time, and
 * typed results are `returns:`'s (typed-values.ts, P050).
 */
import type * as ast from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeMessages as m } from "../../diagnostics/messages.js";
import { walk } from "../../walk.js";
import { branchBinding } from "./parallel-plan.js";
import { typeWords } from "./result-types.js";
import { describedType } from "./typed-values.js";
import { closest } from "./suggest.js";
import type { Analysis, SymbolInfo, TypedValues } from "./types.js";

type Resolved = Pick<Analysis, "program" | "references" | "parallelPlans">;

/** Each record a value may be: its keys, and each key's value expression (null: not known). */
type Shape = ReadonlyArray<ReadonlyMap<string, ast.Expression | null>>;

const BOUND: ReadonlySet<SymbolInfo["kind"]> = new Set(["let", "const", "assigned", "output"]);

/** How many names deep a shape is followed through the names bound to names. */
const MAX_FOLLOWED = 200;

/** P063: keys read off records whose shape the program writes, that none of their shapes gives. */
export function checkRecordFields(analysis: Resolved, typed: TypedValues): Diagnostic[] {
  const bound = new Map<SymbolInfo, ast.Expression[]>();
  const unknown = new Set<SymbolInfo>();
  walk(analysis.program, (node) => {
    if (node.kind === "Destructure")
      for (const name of node.names) {
        const symbol = analysis.references.get(name);
        if (symbol !== undefined) unknown.add(symbol);
      }
    if ((node.kind !== "Binding" && node.kind !== "Output") || node.name === null) return;
    const symbol = analysis.references.get(node.name);
    if (symbol === undefined) return;
    // `output r = r` reports the binding as it is.
    if (node.value.kind === "Identifier" && analysis.references.get(node.value) === symbol) return;
    bound.set(symbol, [...(bound.get(symbol) ?? []), node.value]);
  });

  const known = new Map<SymbolInfo, Shape | undefined>();
  // Names followed to the names they are bound to, nested: past this a shape is not known (no check),
  // so a chain of 20,000 `let` copies never runs out of stack.
  let following = 0;
  const symbolShape = (symbol: SymbolInfo): Shape | undefined => {
    if (known.has(symbol)) return known.get(symbol);
    if (following >= MAX_FOLLOWED) return undefined;
    known.set(symbol, undefined); // A binding bound to itself (`r = { next: r }`) is not followed.
    const values = bound.get(symbol);
    let shape: Shape | undefined;
    if (BOUND.has(symbol.kind) && !unknown.has(symbol) && values !== undefined) {
      following++;
      const shapes = values.map(shapeOf);
      following--;
      if (shapes.every((each) => each !== undefined)) shape = shapes.flat();
    }
    known.set(symbol, shape);
    return shape;
  };
  const shapeOf = (expression: ast.Expression): Shape | undefined => {
    switch (expression.kind) {
      case "Object":
        return [new Map(expression.entries.map((entry) => [keyOf(entry.key), entry.value ?? entry.key] as const))];
      case "Parallel": {
        const names = expression.branches.map(branchBinding);
        if (names.length === 0 || names.some((name) => name === null)) return undefined;
        // A branch's value is its own only when every branch must succeed: a lost race binds `null`,
        // a failure under `continue` its error record.
        const plan = analysis.parallelPlans.get(expression);
        const own = plan?.join === "all" && plan.onFail === "fail-fast";
        return [
          new Map(
            expression.branches.map((branch, index) => [
              names[index]!.name,
              own && (branch.kind === "Binding" || branch.kind === "Output") ? branch.value : null,
            ]),
          ),
        ];
      }
      case "Identifier": {
        const symbol = analysis.references.get(expression);
        return symbol === undefined ? undefined : symbolShape(symbol);
      }
      case "Member":
        return fieldShape(shapeOf(expression.object), expression.property.name);
      case "Index":
        return expression.index.kind === "String"
          ? fieldShape(shapeOf(expression.object), expression.index.value)
          : undefined;
      default:
        return undefined;
    }
  };
  // The shape of a key's value: known when every record that gives it gives a record.
  const fieldShape = (shape: Shape | undefined, key: string): Shape | undefined => {
    if (shape === undefined) return undefined;
    const values = shape.filter((record) => record.has(key)).map((record) => record.get(key) ?? null);
    if (values.length === 0 || values.includes(null)) return undefined;
    const shapes = values.map((value) => shapeOf(value!));
    return shapes.every((each) => each !== undefined) ? shapes.flat() : undefined;
  };

  // A field of a typed result kept in a written record (`r.a.titel`, `a` a session with `returns:`):
  // P050, as when the result is read by its own name.
  const checkTypedField = (object: ast.Expression, key: string, at: ast.SourceRange): void => {
    const field = object.kind === "Member" ? object.property.name : object.kind === "Index" ? object.index : null;
    const name = typeof field === "string" ? field : field?.kind === "String" ? field.value : undefined;
    if (name === undefined || (object.kind !== "Member" && object.kind !== "Index")) return;
    const records = shapeOf(object.object)?.filter((record) => record.has(name));
    if (records === undefined || records.length === 0) return;
    const types = records.map((record) => {
      const value = record.get(name);
      return value === null || value === undefined ? undefined : typed.of(value);
    });
    const first = types[0];
    if (first?.kind !== "record" || types.some((type) => type === undefined || typeWords(type) !== typeWords(first)))
      return;
    if (first.fields.some((each) => each.key === key)) return;
    const keys = first.fields.map((each) => each.key);
    diagnostics.push(m.unknownTypedField(at, key, describedType(first), closest(key, keys)));
  };

  // In program order first: a name is then mostly bound to names already known, one level deep.
  for (const symbol of bound.keys()) symbolShape(symbol);

  const diagnostics: Diagnostic[] = [];
  const check = (object: ast.Expression, key: string, at: ast.SourceRange): void => {
    const shape = shapeOf(object);
    if (shape === undefined) return checkTypedField(object, key, at);
    if (shape.some((record) => record.has(key))) return;
    const keys = [...new Set(shape.flatMap((record) => [...record.keys()]))];
    // `b` for `a` is no typo: short keys get the list alone.
    const suggestion = key.length < 3 ? undefined : closest(key, keys);
    diagnostics.push(m.unknownRecordField(at, key, described(object), keys, suggestion));
  };
  walk(analysis.program, (node) => {
    if (node.kind === "Member") check(node.object, node.property.name, node.property.loc);
    else if (node.kind === "Index" && node.index.kind === "String")
      check(node.object, node.index.value, node.index.loc);
    else if (node.kind === "Destructure") for (const name of node.names) check(node.value, name.name, name.loc);
  });
  return diagnostics;
}

function keyOf(key: ast.Identifier | ast.StringLiteral): string {
  return key.kind === "Identifier" ? key.name : key.value;
}

/** The record read, as the program names it: `r`, `r.nested`, or "the record" for a literal. */
function described(object: ast.Expression): string {
  switch (object.kind) {
    case "Identifier":
      return `\`${object.name}\``;
    case "Member": {
      const inner = described(object.object);
      return inner.startsWith("`") ? `${inner.slice(0, -1)}.${object.property.name}\`` : inner;
    }
    default:
      return "the record";
  }
}
