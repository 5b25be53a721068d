/**
 * What a judgment may look at: the bindings that hold values where it stands. Lowering passes them
 * to `rt.judge`; the cost bound counts them into the judgment's prompt.
 */
import type * as ast from "../../ast.js";
import type { Analysis, SymbolInfo } from "./types.js";

/** Symbol kinds that hold values a judgment may look at. */
export const judgedKinds: ReadonlySet<SymbolInfo["kind"]> = new Set([
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

/**
 * The value-holding symbols of the scopes around `node`, nearest scope first, declared before the
 * offset `before`. An inner symbol comes before an outer one of the same name: a caller that keeps
 * the first of each name sees what the name refers to.
 */
export function* visibleValues(analysis: Analysis, node: ast.Node, before: number): Generator<SymbolInfo> {
  for (let scope = analysis.scopeOf.get(node) ?? null; scope !== null; scope = scope.parent) {
    for (const symbol of scope.symbols.values())
      if (judgedKinds.has(symbol.kind) && symbol.declaration.loc.start.offset <= before) yield symbol;
  }
}
