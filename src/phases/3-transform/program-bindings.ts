/**
 * The program's bindings as a judgment sees them. Listing every binding in scope at every judgment
 * made generated code grow with the square of the program; instead the module lists the
 * program-level bindings once, in order of declaration (`const $bindings = bindingsInOrder({ ... })`),
 * and a judgment names the last one declared before it: `$bindings("draft")`, `$bindings("draft",
 * { item })` with the bindings of inner scopes.
 */
import type { Analysis, SymbolInfo } from "../2-analyze/index.js";
import { propertyKey } from "./literals.js";

/** The TypeScript name of the frame. */
export const bindingsFrame = "$bindings";

/** What a judgment sees of the program's bindings: the frame's first ones through one, or a list. */
export type ProgramView =
  { readonly through: SymbolInfo } | { readonly through?: undefined; readonly listed: readonly SymbolInfo[] };

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
   * What a judgment at `before` (an offset) sees of the program's bindings: those declared up to it
   * but for the ones being declared. `through` names the last when they are the frame's first
   * bindings (they almost always are); otherwise `listed` holds them, to be listed one by one.
   * Nothing here is proportional to the frame (judgments are many in a large program).
   */
  visibleAt(before: number, declaring: ReadonlySet<SymbolInfo>): ProgramView {
    let count = this.countUpTo(before);
    while (count > 0 && declaring.has(this.order[count - 1]!)) count--;
    if ([...declaring].some((symbol) => (this.position.get(symbol) ?? Infinity) < count))
      return { listed: this.order.slice(0, count).filter((symbol) => !declaring.has(symbol)) };
    if (count === 0) return { listed: [] };
    this.furthest = Math.max(this.furthest, count - 1);
    return { through: this.order[count - 1]! };
  }

  /** How many bindings are declared at or before `offset` (binary search: judgments are many). */
  private countUpTo(offset: number): number {
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.order[middle]!.declaration.loc.start.offset <= offset) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The frame's declaration, or nothing when no judgment uses it. */
  declaration(symbolName: (symbol: SymbolInfo) => string, helper: () => string): string[] {
    if (this.furthest < 0) return [];
    const entries = this.order
      .slice(0, this.furthest + 1)
      .map((symbol) => `${propertyKey(symbol.name)}: () => ${symbolName(symbol)},`);
    return [
      "// The program's bindings in order of declaration: a judgment sees those declared before it.",
      `const ${bindingsFrame} = ${helper()}({`,
      ...entries,
      "});",
    ];
  }
}
