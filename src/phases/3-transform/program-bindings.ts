/**
 * The program's bindings as a judgment sees them. Listing every binding in scope at every judgment
 * made generated code grow with the square of the program; instead the module lists the
 * program-level bindings once, in order of declaration (`const $bindings = bindingsInOrder([...])`),
 * and a judgment names the last one declared before it: `$bindings("draft")`, `$bindings("draft",
 * { item })` with the bindings of inner scopes.
 */
import type { Analysis, SymbolInfo } from "../2-analyze/types.js";
import { stringLiteral } from "./literals.js";

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

/** The TypeScript name of the frame. */
export const bindingsFrame = "$bindings";

export class ProgramBindings {
  /** The program-level bindings a judgment may see, in order of declaration. */
  private readonly order: readonly SymbolInfo[];
  private readonly position: ReadonlyMap<SymbolInfo, number>;
  /** The furthest binding a judgment named: the frame lists none after it. */
  private furthest = -1;

  constructor(analysis: Analysis, visible: (symbol: SymbolInfo) => boolean) {
    const scope = analysis.scopes.get(analysis.program)!;
    this.order = [...scope.symbols.values()]
      .filter(visible)
      .sort((a, b) => a.declaration.loc.start.offset - b.declaration.loc.start.offset);
    this.position = new Map(this.order.map((symbol, index) => [symbol, index]));
  }

  /**
   * The last binding of `seen` when `seen` is exactly the frame's first bindings (what a judgment
   * sees is); undefined when `seen` is empty or not such a prefix (the judgment then lists them).
   */
  through(seen: readonly SymbolInfo[]): SymbolInfo | undefined {
    if (seen.length === 0) return undefined;
    let last = -1;
    for (const symbol of seen) last = Math.max(last, this.position.get(symbol) ?? Infinity);
    if (last !== seen.length - 1) return undefined;
    this.furthest = Math.max(this.furthest, last);
    return this.order[last];
  }

  /** The frame's declaration, or nothing when no judgment uses it. */
  declaration(symbolName: (symbol: SymbolInfo) => string, helper: () => string): string[] {
    if (this.furthest < 0) return [];
    const entries = this.order
      .slice(0, this.furthest + 1)
      .map((symbol) => `[${stringLiteral(symbol.name)}, () => ${symbolName(symbol)}],`);
    return [
      "// The program's bindings in order of declaration: a judgment sees those declared before it.",
      `const ${bindingsFrame} = ${helper()}([`,
      ...entries,
      "]);",
    ];
  }
}
