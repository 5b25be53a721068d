/**
 * The state of one program's bound while it is estimated: the symbols it names, the constructs that
 * make it unbounded, block bodies already estimated. Each node's cost comes from a table with an
 * entry per node kind (`node-costs.ts`), given to the estimator as Lowering is given its visitors;
 * what composes in source order is the node's children as `src/walk.ts` lists them.
 */
import type * as ast from "../../../ast.js";
import { childrenOf, walk } from "../../../walk.js";
import type { Count, CostSymbol, ProgramCost, UnboundedConstruct } from "../../../../runtime/cost.js";
import type { Analysis, SymbolInfo } from "../types.js";
import {
  ANSWER_TOKENS,
  CORRECTION_TOKENS,
  DEFAULT_MODEL,
  QUESTION_OVERHEAD_TOKENS,
  REASKS,
  REPLY_TOKENS,
  SESSION_OVERHEAD_TOKENS,
} from "./assumptions.js";
import { Poly } from "./poly.js";
import { recursionCycles } from "./recursion.js";
import { visibleValueCount } from "../visible-values.js";
import { CostVector } from "./vector.js";

const DEFAULT_MAX_DEPTH = 100;
/**
 * The most block bodies the bound unrolls a recursion into (its depth times the blocks it runs
 * through): each is estimated once, so many more would take minutes.
 */
const MAX_UNROLLED_BODIES = 10_000;

export interface CostOptions {
  /** The bound of a program imported with `use` under this alias, when known. */
  readonly imported?: (alias: string) => ProgramCost | undefined;
}

/** How each kind of node costs, given the estimator for what is below it (`depth`: block calls deep). */
export type CostTable = {
  readonly [K in ast.NodeKind]: (node: ast.NodeOfKind<K>, estimator: CostEstimator, depth: number) => CostVector;
};

export class CostEstimator {
  private readonly symbols = new Map<
    string,
    { name: string; kind: CostSymbol["kind"]; input?: string; sites: ast.Position[] }
  >();
  private readonly symbolNames = new Map<SymbolInfo | string, string>();
  private readonly unbounded: UnboundedConstruct[] = [];
  private readonly bindings = new Map<ast.Identifier, ast.Expression>();
  private readonly blockCosts = new Map<string, CostVector>();
  /** Unbounded recursions (by their cycle's first block) being estimated, with the recursive calls met. */
  private readonly expanding = new Map<string, UnboundedConstruct[]>();
  /** Each recursive block's cycle, by the block's name. */
  private readonly recursive: ReadonlyMap<string, readonly string[]>;
  private readonly cycles = new Map<string, readonly ast.BlockDefinition[]>();

  constructor(
    readonly analysis: Analysis,
    private readonly options: CostOptions,
    private readonly table: CostTable,
  ) {
    walk(analysis.program, (node) => {
      if (node.kind === "Binding" && node.declaration !== null) this.bindings.set(node.name, node.value);
    });
    this.recursive = recursionCycles(analysis);
  }

  result(total: CostVector): ProgramCost {
    const tokens: Record<string, { input: Count; output: Count }> = {};
    for (const [model, { input, output }] of [...total.tokens].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      tokens[model] = { input: input.toCount(), output: output.toCount() };
    const calls = total.calls;
    return {
      calls: {
        session: calls.session.toCount(),
        judgment: calls.judgment.toCount(),
        choice: calls.choice.toCount(),
        extraction: calls.extraction.toCount(),
        retry: calls.retry.toCount(),
      },
      criticalPath: total.critical.toCount(),
      tokens,
      symbols: [...this.symbols.values()].map(({ sites, ...symbol }) => ({
        ...symbol,
        sites: sites.map(({ line, column }) => ({ line, column })),
      })),
      unbounded: [...new Map(this.unbounded.map((entry) => [`${entry.line}:${entry.column}`, entry])).values()].sort(
        (a, b) => a.line - b.line || a.column - b.column,
      ),
      assumptions: { replyTokens: REPLY_TOKENS, valueTokens: REPLY_TOKENS, reasks: REASKS },
    };
  }

  // -------------------------------------------------------------------------------------------
  // Composition
  // -------------------------------------------------------------------------------------------

  /** A node's cost, by its kind's entry in the table. */
  cost(node: ast.Node, depth: number): CostVector {
    const visit = this.table[node.kind] as (node: ast.Node, estimator: CostEstimator, depth: number) => CostVector;
    return visit(node, this, depth);
  }

  /** The node's children, one after another. */
  children(node: ast.Node, depth: number): CostVector {
    return this.sequence(childrenOf(node), depth);
  }

  sequence(nodes: readonly ast.Node[], depth: number): CostVector {
    return nodes.reduce((cost, node) => cost.then(this.cost(node, depth)), CostVector.none);
  }

  /** A boolean as generated code tests it: judgments, comparisons, and a truthy test of anything else. */
  condition(expression: ast.Expression, depth: number): CostVector {
    if (expression.kind === "Discretion") return this.cost(expression, depth);
    if (expression.kind === "Boolean") return CostVector.none;
    if (expression.kind === "Unary" && expression.operator === "not") return this.condition(expression.operand, depth);
    if (expression.kind === "Binary" && (expression.operator === "and" || expression.operator === "or"))
      return this.condition(expression.left, depth).then(this.condition(expression.right, depth));
    if (expression.kind === "Binary" && isComparison(expression.operator)) return this.cost(expression, depth);
    return this.cost(expression, depth).then(this.truthy(expression));
  }

  // -------------------------------------------------------------------------------------------
  // Questions the runtime may ask the model
  // -------------------------------------------------------------------------------------------

  /** A judgment or a choice: the question's text and the bindings it shows. */
  question(kind: "judgment" | "choice", discretion: ast.Discretion, characters: number, depth: number): CostVector {
    const input =
      QUESTION_OVERHEAD_TOKENS +
      Math.ceil(characters / 4) +
      visibleValueCount(this.analysis, discretion, discretion.loc.start.offset) * REPLY_TOKENS;
    return this.children(discretion, depth).then(askedWithReasks(kind, input, ANSWER_TOKENS));
  }

  /** `a.b` / `a[0]`: text may need the model to read; a record or list written in the program does not. */
  extraction(object: ast.Expression): CostVector {
    return this.literalStructure(object) ? CostVector.none : readingCall(ANSWER_TOKENS);
  }

  /** The list a `for` or a pipeline reads: a list written in the program, or made by a pipeline, needs no model. */
  listExtraction(collection: ast.Expression): CostVector {
    if (this.literalStructure(collection) || this.madeList(collection) !== undefined) return CostVector.none;
    return readingCall(REPLY_TOKENS);
  }

  truthy(expression: ast.Expression): CostVector {
    return this.literalStructure(expression) ? CostVector.none : readingCall(ANSWER_TOKENS);
  }

  // -------------------------------------------------------------------------------------------
  // Sizes and counts
  // -------------------------------------------------------------------------------------------

  /** A loop without `max`, a recursion without `max_depth`, a program whose bound is not known. */
  noteUnbounded(at: ast.Node, reason: string): void {
    this.unbounded.push({ line: at.loc.start.line, column: at.loc.start.column, reason });
  }

  /**
   * The size of the list `expression` holds: known when it is written in the program, else a symbol
   * (a program input's size, or the list read where `at` is); without an expression, the list read
   * at `at`.
   */
  items(expression: ast.Expression | undefined, at: ast.Node): Poly {
    const here = (): Poly => this.symbol(`|list@${at.loc.start.line}:${at.loc.start.column}|`, "items", at);
    if (expression === undefined) return here();
    const made = this.madeList(expression);
    if (made?.kind === "Array") return Poly.constant(made.elements.length);
    // map, filter and pmap keep at most as many items as they read.
    if (made?.kind === "Pipeline") return this.items(made.source, made.stages[0]!);
    if (expression.kind === "Identifier") {
      const symbol = this.analysis.references.get(expression);
      if (symbol !== undefined) return this.symbol(symbol, "items", at, inputName(symbol));
    }
    return here();
  }

  /** A repeat count, `max:` or `retry:`: a number written in the program, else a symbol read at run time. */
  number(expression: ast.Expression, at: ast.Node): Poly {
    if (expression.kind === "Number") return Poly.constant(Math.max(0, Math.ceil(expression.value)));
    if (expression.kind === "Identifier") {
      const symbol = this.analysis.references.get(expression);
      const bound = symbol === undefined ? undefined : this.bindings.get(symbol.declaration);
      if (bound?.kind === "Number" && symbol?.reassigned === false)
        return Poly.constant(Math.max(0, Math.ceil(bound.value)));
      if (symbol !== undefined) return this.symbol(symbol, "count", at, inputName(symbol));
    }
    return this.symbol(`count@${at.loc.start.line}:${at.loc.start.column}`, "count", at);
  }

  private symbol(key: SymbolInfo | string, kind: CostSymbol["kind"], at: ast.Node, input?: string): Poly {
    let name = this.symbolNames.get(key);
    if (name === undefined) {
      const base = typeof key === "string" ? key : kind === "items" ? `|${key.name}|` : key.name;
      name = this.symbols.has(base)
        ? `${base.replace(/\|$/, "")}@${at.loc.start.line}${base.endsWith("|") ? "|" : ""}`
        : base;
      this.symbolNames.set(key, name);
      this.symbols.set(name, { name, kind, ...(input === undefined ? {} : { input }), sites: [] });
    }
    const sites = this.symbols.get(name)!.sites;
    if (!sites.some((site) => site.offset === at.loc.start.offset)) sites.push(at.loc.start);
    return Poly.symbol(name);
  }

  /** A list or record written in the program (directly, or as a binding that is never reassigned). */
  private literalStructure(expression: ast.Expression): boolean {
    if (LITERAL_KINDS.has(expression.kind)) return true;
    // A typed result (`returns:`) is a list or record already: reading it needs no model.
    const typed = this.analysis.typed.of(expression);
    if (typed?.kind === "list" || typed?.kind === "record") return true;
    if (expression.kind !== "Identifier") return false;
    const symbol = this.analysis.references.get(expression);
    if (symbol === undefined || symbol.reassigned) return false;
    const bound = this.bindings.get(symbol.declaration);
    return bound !== undefined && (bound.kind === "Array" || bound.kind === "Object");
  }

  /** The list literal or `map` / `filter` / `pmap` pipeline an expression is (or a binding never reassigned holds). */
  private madeList(expression: ast.Expression): ast.ArrayExpression | ast.PipelineExpression | undefined {
    let made: ast.Expression | undefined = expression;
    if (expression.kind === "Identifier") {
      const symbol = this.analysis.references.get(expression);
      made = symbol === undefined || symbol.reassigned ? undefined : this.bindings.get(symbol.declaration);
    }
    if (made?.kind === "Array") return made;
    if (
      made?.kind === "Pipeline" &&
      made.stages.length > 0 &&
      made.stages.every((stage) => stage.operator !== "reduce")
    )
      return made;
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Blocks and programs
  // -------------------------------------------------------------------------------------------

  /** A block call at `depth` (the top level calls at 1): its body, unrolled where it recurses. */
  block(call: ast.DoCall, depth: number): CostVector {
    const block = this.analysis.blocks.get(call.name.name);
    if (block === undefined) return CostVector.none;
    if (depth > depthLimit(block)) return CostVector.none;
    if (this.recursive.has(block.name.name)) {
      const cycle = this.cycleThrough(block.name.name);
      const deepest = Math.max(...cycle.map(depthLimit));
      if (cycle.every((member) => !setsMaxDepth(member)))
        return this.unboundedBlock(
          block,
          call,
          depth,
          `recursion through block ${block.name.name} without (max_depth: N)`,
        );
      if (deepest * cycle.length > MAX_UNROLLED_BODIES)
        return this.unboundedBlock(
          block,
          call,
          depth,
          `recursion through block ${block.name.name} unrolls past 10,000 block calls, too many to estimate`,
        );
      this.unrollFromTheBottom(cycle, depth, deepest);
    }
    return this.blockCost(block, depth);
  }

  /** The blocks a recursion through `name` runs through (`name` among them). */
  private cycleThrough(name: string): readonly ast.BlockDefinition[] {
    let cycle = this.cycles.get(name);
    if (cycle === undefined) {
      cycle = (this.recursive.get(name) ?? []).flatMap((member) => this.analysis.blocks.get(member) ?? []);
      this.cycles.set(name, cycle);
    }
    return cycle;
  }

  private blockCost(block: ast.BlockDefinition, depth: number): CostVector {
    const key = `${block.name.name}@${depth}`;
    let cost = this.blockCosts.get(key);
    if (cost === undefined) {
      cost = this.sequence(block.body, depth);
      this.blockCosts.set(key, cost);
    }
    return cost;
  }

  /**
   * The bodies of a recursion's blocks at every depth below `depth`, deepest first: each body then
   * finds the calls under it estimated already, so estimating takes one body's stack, not one per
   * level (a recursion 100 deep through a few nested ifs overflowed it).
   */
  private unrollFromTheBottom(cycle: readonly ast.BlockDefinition[], depth: number, deepest: number): void {
    let bottom = depth + 1;
    while (bottom <= deepest && !cycle.some((member) => this.blockCosts.has(`${member.name.name}@${bottom}`))) bottom++;
    for (let level = bottom - 1; level > depth; level--)
      for (const member of cycle) if (level <= depthLimit(member)) this.blockCost(member, level);
  }

  /**
   * A recursion the bound cannot unroll (without `max_depth`, or past what it unrolls): the bodies
   * of the blocks it runs through once each, their calls of each other counting nothing,
   * unboundedly often; each such call is reported (when the bodies call a model at all). The bodies
   * are estimated one after another, not each inside its caller's: a cycle of thousands of blocks
   * overflowed the stack.
   */
  private unboundedBlock(block: ast.BlockDefinition, call: ast.DoCall, depth: number, reason: string): CostVector {
    const cycle = this.cycleThrough(block.name.name);
    const key = cycle[0]!.name.name;
    const recursion = this.expanding.get(key);
    if (recursion !== undefined) {
      recursion.push({ line: call.loc.start.line, column: call.loc.start.column, reason });
      return CostVector.none;
    }
    let cost = this.blockCosts.get(`${key}@unbounded`);
    if (cost === undefined) {
      const calls: UnboundedConstruct[] = [];
      this.expanding.set(key, calls);
      cost = cycle.reduce((total, member) => total.then(this.sequence(member.body, depth)), CostVector.none);
      this.expanding.delete(key);
      this.blockCosts.set(`${key}@unbounded`, cost);
      if (!cost.isZero) this.unbounded.push(...calls);
    }
    return CostVector.unboundedLike(cost);
  }

  /** A call of an imported program: its bound, with its inputs' symbols read from the arguments. */
  programCall(call: ast.ProgramCall): CostVector {
    const alias = call.callee.name;
    const imported = this.options.imported?.(alias);
    if (imported === undefined) {
      this.noteUnbounded(call, `calls program ${alias}, whose bound is not known here`);
      return CostVector.unboundedLike(CostVector.call("session", DEFAULT_MODEL, SESSION_OVERHEAD_TOKENS, REPLY_TOKENS));
    }
    const argument = new Map(call.args.map((entry) => [entry.name.name, entry.value]));
    const replace = (name: string): Poly => {
      const symbol = imported.symbols.find((candidate) => candidate.name === name);
      const value = symbol?.input === undefined ? undefined : argument.get(symbol.input);
      if (value !== undefined && symbol !== undefined)
        return symbol.kind === "items" ? this.items(value, call) : this.number(value, call);
      return this.symbol(`${alias}.${name}`, symbol?.kind ?? "items", call);
    };
    for (const entry of imported.unbounded)
      this.noteUnbounded(call, `calls program ${alias}: ${entry.reason} (its line ${entry.line})`);
    return importedVector(imported, replace);
  }
}

const LITERAL_KINDS: ReadonlySet<ast.NodeKind> = new Set(["Array", "Object", "Number", "Boolean", "Null"]);

/** An extraction: the instructions and the value it reads, then an answer of `output` tokens. */
function readingCall(output: number): CostVector {
  return askedWithReasks("extraction", QUESTION_OVERHEAD_TOKENS + REPLY_TOKENS, output);
}

/**
 * A forced question and its worst case: asked again `REASKS` times, one after another, each re-ask
 * (a `retry` call) carrying the earlier answers and corrective turns.
 */
function askedWithReasks(kind: "judgment" | "choice" | "extraction", input: number, output: number): CostVector {
  const asked = CostVector.call(kind, DEFAULT_MODEL, input, output);
  if (REASKS === 0) return asked;
  const reask = CostVector.call("retry", DEFAULT_MODEL, input + REASKS * (output + CORRECTION_TOKENS), output);
  return asked.then(reask.times(Poly.constant(REASKS)));
}

function inputName(symbol: SymbolInfo): string | undefined {
  return symbol.kind === "input" ? symbol.name : undefined;
}

function isComparison(operator: ast.BinaryOperator): boolean {
  return ["==", "!=", "<", "<=", ">", ">=", "is"].includes(operator);
}

/** A called program's bound as a cost vector of the caller, its symbols replaced. */
function importedVector(cost: ProgramCost, replace: (symbol: string) => Poly): CostVector {
  const poly = (count: Count): Poly => Poly.fromCount(count).substitute(replace);
  const calls = {
    session: poly(cost.calls.session),
    judgment: poly(cost.calls.judgment),
    choice: poly(cost.calls.choice),
    extraction: poly(cost.calls.extraction),
    retry: poly(cost.calls.retry),
  };
  const tokens = new Map(
    Object.entries(cost.tokens).map(
      ([model, { input, output }]) => [model, { input: poly(input), output: poly(output) }] as const,
    ),
  );
  return CostVector.of(calls, poly(cost.criticalPath), tokens);
}

/** How deep calls of `block` may go: its `max_depth` when written as a number, else the runtime's default. */
function depthLimit(block: ast.BlockDefinition): number {
  const maxDepth = block.modifiers.find((modifier) => modifier.key?.name === "max_depth")?.value;
  return maxDepth?.kind === "Number" ? maxDepth.value : DEFAULT_MAX_DEPTH;
}

function setsMaxDepth(block: ast.BlockDefinition): boolean {
  return block.modifiers.some((modifier) => modifier.key?.name === "max_depth");
}
