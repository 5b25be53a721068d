import type * as ast from "../../../ast.js";
import type { SymbolInfo } from "../../2-analyze/index.js";
import type { Lowering } from "../lowering.js";

/** The name a loop's head binds, and the statements that start each iteration with it. */
export interface LoopVariable {
  readonly head: string;
  readonly rebind: readonly string[];
}

/**
 * A loop's item or index. One the body reassigns is a `let` of its own, set at the top of each
 * iteration from what the loop hands it: the runtime's `number` index takes no text, and a
 * reassigned counter would change how often the loop runs.
 */
export function loopVariable(symbol: SymbolInfo | undefined, kind: string, lowering: Lowering): LoopVariable {
  if (!symbol) return { head: lowering.temporary(kind), rebind: [] };
  const name = lowering.symbolName(symbol);
  if (!symbol.reassigned) return { head: name, rebind: [] };
  const head = lowering.temporary(kind);
  return { head, rebind: [`let ${name}: Value = ${head};`] };
}

/**
 * The item and index parameters of a `parallel for` or `pmap` item that nothing reads: TypeScript's
 * `noUnusedParameters`, which teams turn on, passes over a parameter whose name starts with `_`.
 * Both are reserved (names.ts), so no `.prose` name becomes one.
 */
export const UNREAD_ITEM = "_item";
export const UNREAD_INDEX = "_index";

/** A loop's counter: the `as` name, or a temporary. */
export function counter(identifier: ast.Identifier | null, kind: string, lowering: Lowering): LoopVariable {
  return identifier
    ? loopVariable(lowering.analysis.references.get(identifier), kind, lowering)
    : { head: lowering.temporary(kind), rebind: [] };
}

/**
 * Whether a loop hands its body this variable: not when nothing reads it (the analysis' `readBindings`),
 * and the body does not assign it either.
 */
export function handsOver(symbol: SymbolInfo | undefined, lowering: Lowering): boolean {
  return symbol === undefined || symbol.reassigned || lowering.analysis.readBindings.has(symbol);
}

/** The head of a loop over a list whose items nothing reads: it counts them down. */
export function countDown(list: string, lowering: Lowering): string {
  const remaining = lowering.temporary("remaining");
  return `for (let ${remaining} = (${list}).length; ${remaining} > 0; ${remaining}--) {`;
}
