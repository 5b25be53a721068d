/**
 * Scopes, symbols and what each name refers to: the tables analysis hands to lowering, built as the
 * analyzer's walk declares and resolves names.
 */
import type * as ast from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeMessages as m } from "../../diagnostics/messages.js";
import { walk } from "../../walk.js";
import type { Definitions } from "./definitions.js";
import { LexicalScope, type MutableSymbol } from "./scope.js";
import { closest, misspeltBinding } from "./suggest.js";
import type { Scope } from "./types.js";

export class Bindings {
  readonly references = new Map<ast.Identifier, MutableSymbol>();
  readonly interpolations = new Map<ast.Placeholder, MutableSymbol>();
  readonly scopes = new Map<ast.Node, Scope>();
  readonly scopeOf = new Map<ast.Node, Scope>();
  /** Names used as values that name an agent. */
  readonly agentValues = new Map<ast.Identifier, ast.AgentDefinition>();
  /** Reads of a name a block called earlier bound. */
  readonly blockBindingReads = new Map<ast.Identifier, ast.BlockDefinition>();
  /** Names declared in branches and loop bodies, declared ahead in the enclosing scope. */
  private readonly hoisted = new Map<ast.Identifier, MutableSymbol>();
  private readonly blockCalls: ast.DoCall[] = [];
  /** Names that are a whole `if`/`loop` condition: unbound, they were likely meant as `**judged**`. */
  private readonly conditions = new WeakSet<ast.Identifier>();
  /**
   * Reads in a block body of names nothing there binds, resolved once every block is known (`resolveDeferred`):
   * another block may bind them, defined later in the file.
   */
  private readonly deferred: Array<() => void> = [];
  private current: LexicalScope;
  /** Overrides the position references are resolved at (loop conditions see the whole body). */
  private referenceOffset: number | undefined;

  constructor(
    program: ast.Program,
    private readonly definitions: Definitions,
    private readonly report: (diagnostic: Diagnostic) => void,
  ) {
    this.current = new LexicalScope("program", program, null);
    this.scopes.set(program, this.current);
  }

  /** The innermost scope of the walk. */
  get scope(): LexicalScope {
    return this.current;
  }

  withScope(kind: Scope["kind"], node: ast.Node, work: () => void): void {
    const outer = this.current;
    this.current = new LexicalScope(kind, node, outer);
    this.scopes.set(node, this.current);
    try {
      work();
    } finally {
      this.current = outer;
    }
  }

  /** Resolves the names in `work` as if they stood at `offset`. */
  resolvedAt(offset: number, work: () => void): void {
    const saved = this.referenceOffset;
    this.referenceOffset = offset;
    work();
    this.referenceOffset = saved;
  }

  // -------------------------------------------------------------------------------------------
  // Declarations
  // -------------------------------------------------------------------------------------------

  /**
   * `statement` is the binding or destructuring that declares `name`, when its value may bind names
   * of its own (a `parallel` branch, a `do:` body): those are declared first, since the value runs first.
   */
  declare(
    kind: MutableSymbol["kind"],
    name: ast.Identifier,
    statement?: ast.BindingStatement | ast.DestructureStatement,
  ): void {
    const existing = this.current.symbols.get(name.name);
    if (existing) {
      const inner = existing.declaration.loc;
      this.report(
        statement !== undefined && within(inner, statement.value.loc)
          ? m.boundInsideOwnValue(name.loc, name.name, inner, fixOfBoundInside(name.name, inner, statement))
          : m.duplicateVariable(name.loc, name.name, inner),
      );
      this.references.set(name, existing);
      return;
    }
    const outer = this.shadowed(name);
    if (outer) this.report(m.shadowing(name.loc, name.name, outer.declaration.loc));
    if (this.definitions.agents.has(name.name) && kind !== "param") this.report(m.nameIsAgent(name.loc, name.name));
    this.references.set(name, this.current.declare(kind, name));
  }

  /** A declaration that is never reported (a `use` alias). */
  declareQuietly(kind: MutableSymbol["kind"], name: ast.Identifier): void {
    this.references.set(name, this.current.declare(kind, name));
  }

  /** A name a statement skipped for a syntax error would have bound here, unless it is bound already. */
  declareRecovered(name: string, statement: ast.RecoveredStatement): void {
    if (this.current.lookup(name, statement.loc.start.offset)) return;
    this.current.declare("let", { kind: "Identifier", name, loc: statement.loc });
  }

  /** `item` in `map`, `filter` and `pmap` stages: declared by the stage itself. */
  declareImplicit(kind: MutableSymbol["kind"], name: string, stage: ast.PipeStage): void {
    this.current.declare(kind, { kind: "Identifier", name, loc: { start: stage.loc.start, end: stage.loc.start } });
  }

  /** Binds `name` (a binding or an output) to the symbol declared for it ahead, when there is one. */
  bindHoisted(name: ast.Identifier): boolean {
    const symbol = this.hoisted.get(name);
    if (!symbol) return false;
    if (symbol.declaration !== name) symbol.reassigned = true;
    this.references.set(name, symbol);
    return true;
  }

  /** `name = ...` updates `symbol`, declared earlier. */
  reassign(name: ast.Identifier, symbol: MutableSymbol): void {
    symbol.reassigned = true;
    this.references.set(name, symbol);
  }

  /**
   * A name bound inside `if` / `choice` branches, loop bodies or a `catch` stays visible after them
   * (OpenProse names are flat): declare it once here, so every branch binds the same variable.
   * `ownNames` are the loop's own variables, which are not hoisted.
   */
  hoist(
    bodies: readonly (readonly ast.Statement[])[],
    ownNames: readonly (ast.Identifier | null | undefined)[] = [],
  ): void {
    const found = new Map<string, ast.Identifier[]>();
    for (const body of bodies) collectBindings(body, found);
    // A loop's own variables stay the loop's: assigning one updates it (warning P041), it binds nothing outside.
    for (const own of ownNames) if (own) found.delete(own.name);
    for (const [name, identifiers] of found) {
      if (this.current.lookup(name, identifiers[0]!.loc.start.offset)) continue;
      const symbol = this.current.declare("let", identifiers[0]!);
      for (const identifier of identifiers) this.hoisted.set(identifier, symbol);
    }
  }

  /** An outer binding this declaration hides; a block body is a fresh start, like a function's. */
  private shadowed(name: ast.Identifier): MutableSymbol | undefined {
    for (let scope = this.current; scope.kind !== "block" && scope.parent !== null; scope = scope.parent) {
      const symbol = scope.parent.symbols.get(name.name);
      if (symbol && symbol.declaration.loc.start.offset <= name.loc.start.offset) return symbol;
    }
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // References
  // -------------------------------------------------------------------------------------------

  /** Marks `test` as an `if` or `loop` condition (before it is resolved). */
  condition(test: ast.Expression): void {
    if (test.kind === "Identifier") this.conditions.add(test);
  }

  reference(identifier: ast.Identifier): void {
    const symbol = this.resolve(identifier.name, identifier.loc.start.offset);
    if (symbol) {
      this.references.set(identifier, symbol);
      return;
    }
    const agent = this.definitions.agents.get(identifier.name);
    if (agent) {
      this.agentValues.set(identifier, agent);
      return;
    }
    const fromBlock = this.readBlockBinding(identifier);
    if (fromBlock) {
      this.references.set(identifier, fromBlock);
      return;
    }
    if (
      this.definitions.isRecovered("value", identifier.name) ||
      this.definitions.isRecovered("agent", identifier.name)
    )
      return;
    const undefinedName = m.undefinedName(
      identifier.loc,
      identifier.name,
      closest(identifier.name, this.current.visibleNames()),
      this.conditions.has(identifier),
    );
    this.fromOtherBlock(
      identifier,
      (symbol) => this.references.set(identifier, symbol),
      () => this.report(undefinedName),
    );
  }

  /** Resolves the placeholders of a string: bound roots interpolate, others stay literal text. */
  text(literal: ast.StringLiteral | ast.Discretion): void {
    this.scopeOf.set(literal, this.current);
    for (const part of literal.parts) {
      if (part.kind !== "Placeholder") continue;
      const root = rootOf(part.path);
      const symbol = this.resolve(root.name, part.loc.start.offset) ?? this.readBlockBinding(root);
      if (symbol) {
        this.interpolations.set(part, symbol);
        this.references.set(root, symbol);
      } else if (!this.definitions.isRecovered("value", root.name)) {
        const visible = this.current.visibleNames();
        const typoOf = misspeltBinding(root.name, visible);
        const unbound =
          typoOf === undefined
            ? m.unboundInterpolation(part.loc, part.text, root.name, closest(root.name, visible))
            : m.misspeltInterpolation(part.loc, part.text, root.name, typoOf);
        const interpolate = (symbol: MutableSymbol): void => {
          this.interpolations.set(part, symbol);
          this.references.set(root, symbol);
        };
        this.fromOtherBlock(root, interpolate, () => this.report(unbound));
      }
    }
  }

  /** A `do` call: from here on, the caller may read what the block bound. */
  calledBlock(call: ast.DoCall): void {
    this.blockCalls.push(call);
  }

  /**
   * Resolves the reads `fromOtherBlock` deferred: each a name another block binds (warning P019, read
   * from that block's last finished call), else what it would have been reported as.
   */
  resolveDeferred(): void {
    for (const resolve of this.deferred) resolve();
    this.deferred.length = 0;
  }

  /**
   * A name read in a block body (or at top level, before any call of the block) that nothing there binds
   * may be bound inside another block (DIALECT.md, "Scoping and names"): decided once every block is
   * known; `missing` reports it else.
   */
  private fromOtherBlock(
    identifier: ast.Identifier,
    found: (symbol: MutableSymbol) => void,
    missing: () => void,
  ): void {
    // Outside every block (top level) the read may come before any call of the block: it reads `null` then.
    const reader = this.current.enclosingBlock()?.node;
    if (reader !== undefined && reader.kind !== "Block") {
      missing();
      return;
    }
    this.deferred.push(() => {
      for (const block of this.definitions.blocks.values()) {
        if (block === reader) continue;
        const symbol = (this.scopes.get(block) as LexicalScope | undefined)?.symbols.get(identifier.name);
        if (symbol === undefined || symbol.kind === "param") continue;
        found(symbol);
        this.blockBindingReads.set(identifier, block);
        this.report(m.blockBindingRead(identifier.loc, identifier.name, block.name.name));
        return;
      }
      missing();
    });
  }

  private resolve(name: string, offset: number): MutableSymbol | undefined {
    return this.current.lookup(name, this.referenceOffset ?? offset);
  }

  private readBlockBinding(identifier: ast.Identifier): MutableSymbol | undefined {
    const found = this.bindingOfCalledBlock(identifier);
    if (!found) return undefined;
    this.blockBindingReads.set(identifier, found.block);
    this.report(m.blockBindingRead(identifier.loc, identifier.name, found.block.name.name));
    return found.symbol;
  }

  /**
   * OpenProse names are flat: a caller may read what a block it called bound. Only a block
   * called by `do` before this point counts.
   */
  private bindingOfCalledBlock(
    identifier: ast.Identifier,
  ): { symbol: MutableSymbol; block: ast.BlockDefinition } | undefined {
    for (const call of this.blockCalls) {
      if (call.loc.end.offset > identifier.loc.start.offset) continue;
      const block = this.definitions.blocks.get(call.name.name);
      const symbol = block
        ? (this.scopes.get(block) as LexicalScope | undefined)?.symbols.get(identifier.name)
        : undefined;
      if (block && symbol && symbol.kind !== "param") return { symbol, block };
    }
    return undefined;
  }
}

/**
 * Where a name bound below a statement list stays in that list's scope: nested branches, `parallel`
 * branches, `do:` and `try` bodies, but not loops, pipelines, blocks or the value of an `output`.
 */
const bindingReaches: ReadonlySet<ast.NodeKind> = new Set([
  "Binding",
  "Destructure",
  "ExpressionStatement",
  "If",
  "IfClause",
  "Choice",
  "ChoiceOption",
  "Parallel",
  "DoBlock",
  "Try",
  "Catch",
]);

/** Names that statements bind, looking into nested branches but not into loops, pipelines or blocks. */
function collectBindings(statements: readonly ast.Statement[], found: Map<string, ast.Identifier[]>): void {
  for (const statement of statements) {
    walk(statement, (node) => {
      for (const name of boundNames(node)) found.set(name.name, [...(found.get(name.name) ?? []), name]);
      return bindingReaches.has(node.kind);
    });
  }
}

/** The names a statement binds where it stands: a binding's, an output's, a destructuring's. */
export function boundNames(node: ast.Node): readonly ast.Identifier[] {
  if (node.kind === "Destructure") return node.names;
  return (node.kind === "Binding" || node.kind === "Output") && node.name ? [node.name] : [];
}

function rootOf(path: ast.Identifier | ast.MemberExpression | ast.IndexExpression): ast.Identifier {
  let node: ast.Expression = path;
  while (node.kind === "Member" || node.kind === "Index") node = node.object;
  return node as ast.Identifier;
}

function within(inner: ast.SourceRange, outer: ast.SourceRange): boolean {
  return inner.start.offset >= outer.start.offset && inner.end.offset <= outer.end.offset;
}

/** Where the fix of a name bound both by a statement and inside its value goes: the statement's own name. */
function fixOfBoundInside(
  name: string,
  inner: ast.SourceRange,
  statement: ast.BindingStatement | ast.DestructureStatement,
): string {
  const line = inner.start.line;
  if (statement.kind === "Binding")
    return `bind the value to another name (\`let ${name}_all = ...\`), or rename the \`${name}\` on line ${line}`;
  return statement.names.length === 1
    ? `remove \`${statement.declaration} { ${name} } =\`: line ${line} binds \`${name}\` without it; or rename one of the two`
    : `leave \`${name}\` out of the braces: line ${line} binds it without them; or rename one of the two`;
}
