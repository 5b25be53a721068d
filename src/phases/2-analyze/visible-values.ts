/**
 * What a judgment may look at: the bindings that hold values where it stands. Lowering passes them
 * to `rt.judge`; the cost bound counts them into the judgment's prompt.
 */
import type * as ast from "../../ast.js";
import type { Analysis, Scope, SymbolInfo } from "./types.js";

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
 * How many names a judgment at `node` may look at: the value-holding symbols of the scopes around it
 * declared before the offset `before`, a name shadowed by an inner scope counted once. The program's
 * own scope is counted by binary search over its declarations, so asking at every judgment of a
 * 50,000-line program stays linear; the inner scopes around one node are small.
 */
export function visibleValueCount(analysis: Analysis, node: ast.Node, before: number): number {
  const scopes: Scope[] = [];
  for (let scope = analysis.scopeOf.get(node) ?? null; scope !== null; scope = scope.parent) scopes.push(scope);
  const outermost = scopes.pop();
  if (outermost === undefined) return 0;
  const inner = new Set<string>();
  for (const scope of scopes)
    for (const symbol of scope.symbols.values()) if (isVisible(symbol, before)) inner.add(symbol.name);
  let count = inner.size + declaredBefore(outermost, before);
  for (const name of inner) {
    const outer = outermost.symbols.get(name);
    if (outer !== undefined && isVisible(outer, before)) count -= 1;
  }
  return count;
}

function isVisible(symbol: SymbolInfo, before: number): boolean {
  return judgedKinds.has(symbol.kind) && symbol.declaration.loc.start.offset <= before;
}

const sortedOffsets = new WeakMap<Scope, readonly number[]>();

/** How many value-holding symbols of `scope` are declared at or before `before`. */
function declaredBefore(scope: Scope, before: number): number {
  let offsets = sortedOffsets.get(scope);
  if (offsets === undefined) {
    offsets = [...scope.symbols.values()]
      .filter((symbol) => judgedKinds.has(symbol.kind))
      .map((symbol) => symbol.declaration.loc.start.offset)
      .sort((a, b) => a - b);
    sortedOffsets.set(scope, offsets);
  }
  let low = 0;
  let high = offsets.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (offsets[middle]! <= before) low = middle + 1;
    else high = middle;
  }
  return low;
}
