/**
 * What every visitor shares while one program is lowered: the analysis, the TypeScript names,
 * the temporaries handed out so far and the runtime helpers the module uses. Visitors reach each
 * other through `value`, `condition` and `statements` here (Svelte's `context.visit`), dispatching
 * on the node's kind through tables with an entry for every kind.
 */
import type * as ast from "../../ast.js";
import {
  type Analysis,
  branchBinding,
  inferValueTypes,
  judgedKinds,
  resultValueType,
  type SymbolInfo,
  union,
  type ValueTypes,
} from "../2-analyze/index.js";
import { walk } from "../../walk.js";
import { fieldGroups } from "./field-groups.js";
import { filterVerdicts } from "./filter-verdicts.js";
import type { Finish, Lines, Lowered } from "./lowered.js";
import type { NameTable } from "./names.js";
import { ProgramBindings } from "./program-bindings.js";
import type { LowerState } from "./state.js";
import { elementText, typeText } from "./type-text.js";
import { returnsFromProgram } from "./program-returns.js";

/** Symbol kinds a statement list declares with `const`/`let` (the others are parameters, loop items, ...). */
export const declaredKinds: ReadonlySet<SymbolInfo["kind"]> = new Set(["let", "const", "assigned", "output", "input"]);

/** What is asked of an expression besides its value. */
export interface ValueRequest {
  /** The name the value is bound to, for the session's trace. */
  readonly binding?: string;
  /** An expression statement: a block-valued construct then keeps no result. */
  readonly discard?: boolean;
  /** An expression statement: its result is unbound and joins the trail (DIALECT.md, "Context"). */
  readonly unbound?: boolean;
}

/** What a statement gives the list it stands in. */
export interface StatementOutcome {
  /** Its value, when the list wants one and the statement has one. */
  readonly value?: Lowered;
}

export type ExpressionVisitors = {
  readonly [K in ast.Expression["kind"]]: (
    node: ast.NodeOfKind<K>,
    state: LowerState,
    lowering: Lowering,
    request: ValueRequest,
  ) => Lowered;
};

export type StatementVisitors = {
  readonly [K in ast.Statement["kind"]]: (
    node: ast.NodeOfKind<K>,
    state: LowerState,
    lowering: Lowering,
    wantValue: boolean,
  ) => StatementOutcome;
};

/** How a statement list is lowered: see `visitors/statement-list.ts`. */
export interface ListOptions {
  /** The node that opens the list's scope: its names are declared in the list. */
  readonly scope: ast.Node | null;
  readonly finish?: Finish;
  /** Symbols to declare ahead as well. */
  readonly declareAhead?: readonly SymbolInfo[];
  /**
   * The finish takes the value of the list's last statement that produces one, not of its last
   * statement (a program without outputs: its final result).
   */
  readonly finishLastValue?: boolean;
  /**
   * With `finishLastValue`, what a `break` in the `if`s and `choice`s after the last value does
   * before it leaves: the enclosing iteration's own finish (`visitors/statement-list.ts`).
   */
  readonly breakCarry?: readonly string[];
}

export interface Visitors {
  readonly expressions: ExpressionVisitors;
  readonly statements: StatementVisitors;
  readonly condition: (expression: ast.Expression, state: LowerState, lowering: Lowering) => Lowered;
  readonly list: (
    statements: readonly ast.Statement[],
    state: LowerState,
    lowering: Lowering,
    options: ListOptions,
  ) => Lines;
}

/** Functions of `prosec/runtime` that generated code may call (imported only when used). */
export type RuntimeHelper =
  "text" | "add" | "subtract" | "multiply" | "divide" | "equals" | "compare" | "bindingsInOrder";

export class Lowering {
  private readonly symbolNames = new Map<SymbolInfo, string>();
  private readonly temporaries = new Map<string, number>();
  private readonly helpersUsed = new Set<RuntimeHelper>();
  /** Block bindings the caller reads (flat names): declared once at program level. */
  readonly promoted: ReadonlySet<SymbolInfo>;
  /**
   * Program-level bindings that blocks and agents read. A block may run before the binding's
   * statement (names are flat): declared ahead as `null`, never in a temporal dead zone. So are
   * the outputs of a program that a `return` may end before they are bound.
   */
  readonly readFromFunctions: ReadonlySet<SymbolInfo>;
  /** Fields read from one binding, asked for in one extraction (`field-groups.ts`). */
  readonly fieldGroups: ReadonlyMap<ast.MemberExpression, readonly string[]>;
  /** Sessions that give a `filter:` stage its verdict (`filter-verdicts.ts`). */
  readonly filterVerdicts: ReadonlySet<ast.SessionExpression>;
  private readonly types: ValueTypes;
  /** The program-level bindings judgments see, listed once (see program-bindings.ts). */
  readonly programBindings: ProgramBindings;
  /** Bindings a `parallel:` branch binds: the join destructures them by name. */
  private readonly boundInBranches = new Set<SymbolInfo>();
  /** Dynamic agents whose properties take a step (read a field): built with the using step's handle. */
  readonly agentsTakingHandle = new Set<string>();

  constructor(
    readonly analysis: Analysis,
    readonly names: NameTable,
    /** Agents whose properties read bindings: built when a session uses them. */
    readonly dynamicAgents: ReadonlySet<string>,
    private readonly visitors: Visitors,
    /**
     * Under `prosec eval`, the eval program's asserts by their ids: each is a scored check (`rt.check`)
     * that does not stop the run. Absent everywhere else, where an assert raises.
     */
    readonly scoredAsserts?: ReadonlyMap<ast.AssertStatement, string>,
  ) {
    this.promoted = new Set(
      [...analysis.blockBindingReads.keys()].flatMap((identifier) => analysis.references.get(identifier) ?? []),
    );
    const readInside = new Set<SymbolInfo>();
    const programScope = analysis.scopes.get(analysis.program);
    for (const definition of [...analysis.blocks.values(), ...analysis.agents.values()]) {
      walk(definition, (node) => {
        const symbol = node.kind === "Identifier" ? analysis.references.get(node) : undefined;
        if (symbol?.scope.kind === "program" && symbol.declaration !== node) readInside.add(symbol);
        // A judgment shows the program's bindings declared above it: inside a block it reads them
        // too, and the block may be called before their statements ran.
        if (node.kind !== "Discretion") return;
        for (const declared of programScope?.symbols.values() ?? []) {
          if (declaredKinds.has(declared.kind) && declared.declaration.loc.start.offset < node.loc.start.offset)
            readInside.add(declared);
        }
      });
    }
    if (returnsFromProgram(analysis.program)) {
      for (const output of analysis.outputs) {
        const symbol = programScope?.symbols.get(output);
        if (symbol) readInside.add(symbol);
      }
    }
    this.readFromFunctions = readInside;
    walk(analysis.program, (node) => {
      if (node.kind !== "Parallel") return;
      for (const branch of node.branches) {
        const name = branchBinding(branch);
        const symbol = name && analysis.references.get(name);
        if (symbol) this.boundInBranches.add(symbol);
      }
    });
    this.fieldGroups = fieldGroups(analysis);
    this.filterVerdicts = filterVerdicts(analysis);
    // A program run in parts declares its bindings ahead of the parts (parts.ts), in the same order
    // of statements: what definite assignment finds of its body holds of them too.
    this.types = inferValueTypes(
      analysis,
      (symbol) => this.promoted.has(symbol) || readInside.has(symbol),
      (symbol) => this.promoted.has(symbol),
    );
    this.programBindings = new ProgramBindings(
      analysis,
      (symbol) => judgedKinds.has(symbol.kind) && !this.promoted.has(symbol),
    );
  }

  /** The TypeScript type of an expression's value. */
  expressionType(expression: ast.Expression): string {
    return typeText(this.types.expression(expression), (program) => this.names.get("value", program));
  }

  /** The element type of a `map`'s list of item results (`T` in `T[]`): `Value` when no `returns:` types it. */
  itemType(body: readonly ast.Statement[]): string {
    const item = this.analysis.typed.item(body);
    return item === undefined
      ? "Value"
      : elementText(resultValueType(item), (program) => this.names.get("value", program));
  }

  /** The TypeScript type a binding is declared with; `ahead`: declared as `null` before it is bound. */
  typeOf(symbol: SymbolInfo, ahead = false): string {
    const type = this.types.symbol(symbol);
    return typeText(ahead ? union([type, { kind: "null" }]) : type, (program) => this.names.get("value", program));
  }

  /**
   * Whether a binding is written without its name: nothing reads it (the analysis' `readBindings`),
   * so it is never declared and what computes it stands alone (`rt.bind(...)`), as a reviewer would
   * write it. A `parallel:` branch's binding keeps its name: the join destructures it.
   */
  unnamed(symbol: SymbolInfo): boolean {
    return (
      declaredKinds.has(symbol.kind) && !this.analysis.readBindings.has(symbol) && !this.boundInBranches.has(symbol)
    );
  }

  /** Whether a binding declared ahead is bound before every read: declared then without a value. */
  boundBeforeRead(symbol: SymbolInfo): boolean {
    return this.types.boundBeforeRead(symbol);
  }

  /** A `Value`-typed expression. */
  value(expression: ast.Expression, state: LowerState, request: ValueRequest = {}): Lowered {
    const visit = this.visitors.expressions[expression.kind] as (
      node: ast.Expression,
      state: LowerState,
      lowering: Lowering,
      request: ValueRequest,
    ) => Lowered;
    return visit(expression, state, this, request);
  }

  /** One statement, written to `state.out`. */
  statement(statement: ast.Statement, state: LowerState, wantValue: boolean): StatementOutcome {
    const visit = this.visitors.statements[statement.kind] as (
      node: ast.Statement,
      state: LowerState,
      lowering: Lowering,
      wantValue: boolean,
    ) => StatementOutcome;
    return visit(statement, state, this, wantValue);
  }

  /** A boolean expression for a condition. */
  condition(expression: ast.Expression, state: LowerState): Lowered {
    return this.visitors.condition(expression, state, this);
  }

  /** A statement list of its own (a body), written with `state`'s settings. */
  statements(statements: readonly ast.Statement[], state: LowerState, options: ListOptions): Lines {
    return this.visitors.list(statements, state, this, options);
  }

  /**
   * A symbol's TypeScript name. A binding that shadows an outer one of the same name
   * (`let n = n + 1` in a loop) gets its own name: in TypeScript the inner declaration would
   * hide the outer one for the whole block, its own initializer included.
   */
  symbolName(symbol: SymbolInfo): string {
    const known = this.symbolNames.get(symbol);
    if (known !== undefined) return known;
    const base = this.names.get("value", symbol.name);
    let depth = 1;
    for (let scope = symbol.scope.parent; scope !== null; scope = scope.parent)
      if (scope.symbols.has(symbol.name)) depth++;
    const name = depth === 1 ? base : `${base}$${depth}`;
    this.symbolNames.set(symbol, name);
    return name;
  }

  /** Where the outside reads a block binding: the value the block's most recently finished call gave it. */
  lastCallName(symbol: SymbolInfo): string {
    return `${this.symbolName(symbol)}$lastCall`;
  }

  identifierName(identifier: ast.Identifier): string {
    const symbol = this.analysis.references.get(identifier);
    return symbol ? this.symbolName(symbol) : this.names.get("value", identifier.name);
  }

  /** A fresh `$`-prefixed temporary: `$kind`, then `$kind2`, ... */
  temporary(kind: string): string {
    const count = (this.temporaries.get(kind) ?? 0) + 1;
    this.temporaries.set(kind, count);
    return count === 1 ? `$${kind}` : `$${kind}${count}`;
  }

  /** The name of a runtime helper, which the module then imports. */
  helper(name: RuntimeHelper): string {
    this.helpersUsed.add(name);
    return name;
  }

  get helpers(): ReadonlySet<RuntimeHelper> {
    return this.helpersUsed;
  }
}
