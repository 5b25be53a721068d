/**
 * Definite assignment, as TypeScript's checker does it: which bindings are bound on every path to
 * each place that reads them. A name bound in every branch of a `choice` (or of an `if` with an
 * `else`) is bound after it; a branch that leaves (`return`, `break`, `continue`, `throw`) does not
 * count against that, as it never reaches what follows. Loops, `try`, `parallel` and `do:` bodies
 * may bind nothing (a loop may not run, a `try` body may fail early, branches run as closures):
 * what they bind is not counted after them, but for a `parallel`'s named branches, which its join
 * binds (lowering destructures them from the joined result).
 *
 * A judgment reads the bindings it sees too. It reads a program-level binding through the module's
 * frame of getters, which gives `null` for one declared but not yet bound (runtime/values/bindings.ts),
 * so that read needs no binding; any other (an inner scope's binding, or a judgment inside an
 * initializer, which lowering may hand the program's bindings as values) reads the variable itself.
 */
import type * as ast from "../../ast.js";
import { childrenOf } from "../../walk.js";
import { branchBinding } from "./parallel-plan.js";
import type { Analysis, Scope, SymbolInfo } from "./types.js";

/** The bindings bound on every path to a place; `null` where no path reaches (the code after a jump). */
type Bound = ReadonlySet<SymbolInfo> | null;

/**
 * Of the `tracked` bindings, those some place may read before they are bound: a read (of the name,
 * in a string, by a judgment), or the program's end for an output.
 */
export function readBeforeBound(analysis: Analysis, tracked: ReadonlySet<SymbolInfo>): ReadonlySet<SymbolInfo> {
  const unbound = new Set<SymbolInfo>();
  if (tracked.size === 0) return unbound;

  /** Whether the judgment `node` reads `symbol` as a variable (not through the frame's getter). */
  const judgmentReads = (node: ast.Discretion, symbol: SymbolInfo, before: number, inInitializer: boolean): boolean => {
    if (symbol.declaration.loc.start.offset > before) return false;
    if (!inScopeChain(analysis.scopeOf.get(node), symbol.scope)) return false;
    return symbol.scope.kind !== "program" || inInitializer;
  };

  /**
   * Records the reads below `node` made where `bound` holds. `inInitializer`: inside the value of a
   * binding declared where it is bound; `before`: what a judgment sees is declared before this offset.
   */
  const reads = (node: ast.Node, bound: ReadonlySet<SymbolInfo>, inInitializer: boolean, before?: number): void => {
    if (isStatement(node)) {
      statement(node, bound, inInitializer);
      return;
    }
    switch (node.kind) {
      case "Identifier": {
        const symbol = analysis.references.get(node);
        if (symbol && tracked.has(symbol) && !bound.has(symbol)) unbound.add(symbol);
        return;
      }
      case "Discretion":
        for (const symbol of tracked) {
          if (!bound.has(symbol) && judgmentReads(node, symbol, before ?? node.loc.start.offset, inInitializer))
            unbound.add(symbol);
        }
        break;
      case "DoBlock":
      case "PipeStage":
        list(node.body, bound, inInitializer);
        return;
      case "Repeat":
      case "ForEach":
      case "Loop":
        for (const child of childrenOf(node)) if (!isStatement(child)) reads(child, bound, inInitializer);
        list(node.body, bound, inInitializer);
        return;
      case "LoopCondition":
        // Judged before each iteration, seeing what the body binds (the last iteration's values).
        reads(node.test, bound, inInitializer, Number.MAX_SAFE_INTEGER);
        return;
      case "Try":
        list(node.body, bound, inInitializer);
        if (node.handler) list(node.handler.body, bound, inInitializer);
        if (node.finalizer) list(node.finalizer, bound, inInitializer);
        return;
      default:
        // `parallel:` branches (statements) each start from what is bound before it.
        break;
    }
    for (const child of childrenOf(node)) reads(child, bound, inInitializer, before);
  };

  /** What `statements` bind on every path through them, from `bound` before them. */
  const list = (
    statements: readonly ast.Statement[],
    bound: ReadonlySet<SymbolInfo>,
    inInitializer: boolean,
  ): Bound => {
    let current: Bound = bound;
    let last = bound;
    for (const each of statements) {
      // Code after a jump is never reached; its reads are checked as if it were (it binds nothing new).
      current = statement(each, current ?? last, inInitializer);
      if (current !== null) last = current;
    }
    return current;
  };

  const statement = (node: ast.Statement, bound: ReadonlySet<SymbolInfo>, inInitializer: boolean): Bound => {
    const read = (child: ast.Node | null): void => {
      if (child) reads(child, bound, inInitializer);
    };
    switch (node.kind) {
      case "Binding":
        return binds(bound, [node.name], node.value, inInitializer);
      case "Output":
        return binds(bound, node.name ? [node.name] : [], node.value, inInitializer);
      case "Destructure":
        return binds(bound, node.names, node.value, inInitializer);
      case "Input":
        for (const child of childrenOf(node)) if (child !== node.name) read(child);
        return withSymbols(bound, [node.name]);
      case "If": {
        const branches = node.clauses.map((clause) => {
          read(clause.test);
          return list(clause.body, bound, inInitializer);
        });
        branches.push(node.alternate ? list(node.alternate, bound, inInitializer) : bound);
        return meet(branches);
      }
      case "Choice":
        read(node.criteria);
        if (node.options.length === 0) return bound;
        return meet(
          node.options.map((option) => {
            read(option.label);
            return list(option.body, bound, inInitializer);
          }),
        );
      case "Return":
      case "Break":
      case "Continue":
        return null;
      case "Throw":
        read(node.message);
        return null;
      case "Block":
        // A function of its own: its body starts with nothing bound.
        list(node.body, new Set(), inInitializer);
        return bound;
      case "ExpressionStatement":
        read(node.expression);
        return withSymbols(bound, joinBindings(node.expression));
      case "Assert":
        read(node.test);
        read(node.message);
        return bound;
      case "Use":
      case "Import":
      case "Agent":
      case "Recovered":
        return bound;
    }
  };

  /** A binding statement: its value is read first (inside its own initializer), then its names are bound. */
  const binds = (
    bound: ReadonlySet<SymbolInfo>,
    names: readonly ast.Identifier[],
    value: ast.Expression,
    inInitializer: boolean,
  ): Bound => {
    // Lowering declares an untracked binding at its first binding (`const x = ...`), which a judgment in the value cannot read.
    const declares = names.some((name) => {
      const symbol = analysis.references.get(name);
      return symbol !== undefined && symbol.declaration === name && !tracked.has(symbol);
    });
    reads(value, bound, inInitializer || declares);
    return withSymbols(bound, [...joinBindings(value), ...names]);
  };

  const withSymbols = (bound: ReadonlySet<SymbolInfo>, names: readonly ast.Identifier[]): ReadonlySet<SymbolInfo> => {
    const symbols = names.flatMap((name) => {
      const symbol = analysis.references.get(name);
      return symbol && tracked.has(symbol) && !bound.has(symbol) ? [symbol] : [];
    });
    return symbols.length === 0 ? bound : new Set([...bound, ...symbols]);
  };

  const atEnd = list(analysis.program.body, new Set(), false);
  // The program's end hands back its outputs (a program that always returns never gets there).
  const programScope = analysis.scopes.get(analysis.program);
  for (const output of analysis.outputs) {
    const symbol = programScope?.symbols.get(output);
    if (symbol && tracked.has(symbol) && atEnd !== null && !atEnd.has(symbol)) unbound.add(symbol);
  }
  return unbound;
}

/** The names a `parallel` standing as a statement's value binds at its join. */
function joinBindings(value: ast.Expression): ast.Identifier[] {
  return value.kind === "Parallel" ? value.branches.flatMap((branch) => branchBinding(branch) ?? []) : [];
}

/** Where paths join: bound after it is what every path that reaches it binds. */
function meet(paths: readonly Bound[]): Bound {
  const reaching = paths.filter((path) => path !== null);
  if (reaching.length === 0) return null;
  const [first, ...rest] = reaching;
  return new Set([...first!].filter((symbol) => rest.every((path) => path.has(symbol))));
}

function inScopeChain(scope: Scope | undefined, target: Scope): boolean {
  for (let current = scope ?? null; current !== null; current = current.parent) if (current === target) return true;
  return false;
}

/** Every statement kind, as a table: a kind added to `ast.Statement` does not compile until it is listed. */
const statementKinds: { readonly [K in ast.Statement["kind"]]: true } = {
  Use: true,
  Import: true,
  Input: true,
  Output: true,
  Agent: true,
  Block: true,
  Binding: true,
  Destructure: true,
  ExpressionStatement: true,
  If: true,
  Choice: true,
  Throw: true,
  Assert: true,
  Return: true,
  Break: true,
  Continue: true,
  Recovered: true,
};

function isStatement(node: ast.Node): node is ast.Statement {
  return Object.hasOwn(statementKinds, node.kind);
}
