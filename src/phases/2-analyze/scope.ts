import type { Identifier, Node } from "../../ast.js";
import type { Scope, ScopeKind, SymbolInfo, SymbolKind } from "./types.js";

/** A symbol while analysis runs: `reassigned` is learnt as the walk goes on. */
export class MutableSymbol implements SymbolInfo {
  reassigned = false;

  constructor(
    readonly kind: SymbolKind,
    readonly name: string,
    readonly declaration: Identifier,
    readonly scope: LexicalScope,
  ) {}
}

export class LexicalScope implements Scope {
  readonly symbols = new Map<string, MutableSymbol>();

  constructor(
    readonly kind: ScopeKind,
    readonly node: Node,
    readonly parent: LexicalScope | null,
  ) {}

  declare(kind: SymbolKind, declaration: Identifier): MutableSymbol {
    const symbol = new MutableSymbol(kind, declaration.name, declaration, this);
    this.symbols.set(declaration.name, symbol);
    return symbol;
  }

  /**
   * The symbol a name refers to at `offset`: declared earlier in this scope or an enclosing one.
   * Inside a block body every program-level name counts, since a block runs when it is called.
   */
  lookup(name: string, offset: number): MutableSymbol | undefined {
    let insideBlock = false;
    for (let scope: LexicalScope | null = this; scope !== null; scope = scope.parent) {
      const symbol = scope.symbols.get(name);
      if (symbol && isVisible(symbol, offset, insideBlock)) return symbol;
      if (scope.kind === "block") insideBlock = true;
    }
    return undefined;
  }

  /** Every name visible from here, for suggestions. */
  visibleNames(): Set<string> {
    const names = new Set<string>();
    for (let scope: LexicalScope | null = this; scope !== null; scope = scope.parent) {
      for (const name of scope.symbols.keys()) names.add(name);
    }
    return names;
  }

  /** The nearest block body this scope is inside, if any. */
  enclosingBlock(): LexicalScope | undefined {
    for (let scope: LexicalScope | null = this; scope !== null; scope = scope.parent) {
      if (scope.kind === "block") return scope;
    }
    return undefined;
  }
}

/** Every symbol a name read at `offset` in `scope` can refer to, innermost first: what `lookup` finds, name by name. */
export function visibleSymbols(scope: Scope, offset: number): SymbolInfo[] {
  const found = new Map<string, SymbolInfo>();
  let insideBlock = false;
  for (let current: Scope | null = scope; current !== null; current = current.parent) {
    for (const symbol of current.symbols.values()) {
      if (!found.has(symbol.name) && isVisible(symbol, offset, insideBlock)) found.set(symbol.name, symbol);
    }
    if (current.kind === "block") insideBlock = true;
  }
  return [...found.values()];
}

/** Declared before `offset`, or a program-level name read inside a block body (a block runs when it is called). */
function isVisible(symbol: SymbolInfo, offset: number, insideBlock: boolean): boolean {
  return symbol.declaration.loc.start.offset <= offset || (insideBlock && symbol.scope.kind === "program");
}
