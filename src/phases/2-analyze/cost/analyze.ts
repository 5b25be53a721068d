/**
 * The static cost bound of a program (runtime/bound.ts's `ProgramCost`), from its analysed AST:
 * the worst case of every construct, as generated code runs it.
 *
 * - A session is one call (its tool turns come on top), plus `retry: N` more; a `**condition**` one
 *   judgment; a `choice` one choice. Reading structure from a value that may be text (`a.b`, `xs[0]`,
 *   `for x in text`, a truthy test of text) may take one extraction, each time it is evaluated.
 * - Sequence adds; `parallel` adds calls but only its longest branch to the critical path; `if` /
 *   `choice` take the worst branch, after every condition; `try` adds body, handler and finalizer.
 * - `repeat N`, `for x in xs`, pipelines and `loop (max: N)` multiply their body: by a number, a
 *   list's size (`|xs|`) or a count read at run time; `parallel for` and `pmap` add only one body to
 *   the critical path. A loop without `max` is unbounded, and so is recursion through blocks none of
 *   which sets `max_depth`; with `max_depth`, recursion is unrolled to that depth.
 * - Tokens: from the text of each prompt (a quarter of its characters), the runtime's framing and
 *   tool definitions, and stated assumptions for what is only known at run time: a session's reply
 *   and each value a prompt shows (context, interpolation, a judgment's scope) are `REPLY_TOKENS`.
 */
import type * as ast from "../../../ast.js";
import type { Count, CostSymbol, ProgramCost, UnboundedConstruct } from "../../../../runtime/bound.js";
import type { Analysis, SymbolInfo } from "../types.js";
import { Poly } from "./poly.js";
import { descendants } from "./walk.js";
import { CostVector } from "./vector.js";

/** Assumed size of a session's reply, and of every value a prompt shows, in tokens. */
export const REPLY_TOKENS = 1000;
/** A judgment's, choice's or extraction's answer. */
const ANSWER_TOKENS = 100;
/** The runtime's framing of a session and its built-in tool definitions (measured: about 450). */
const SESSION_OVERHEAD_TOKENS = 450;
/** The fixed instructions and answer tool of a judgment, choice or extraction. */
const QUESTION_OVERHEAD_TOKENS = 150;
const DEFAULT_MAX_DEPTH = 100;
const DEFAULT_MODEL = "sonnet";

export interface CostOptions {
  /** The bound of a program imported with `use` under this alias, when known. */
  readonly imported?: (alias: string) => ProgramCost | undefined;
}

export function programCost(analysis: Analysis, options: CostOptions = {}): ProgramCost {
  const estimator = new CostEstimator(analysis, options);
  const total = estimator.statements(analysis.program.body, 0);
  return estimator.result(total);
}

const tokensOf = (text: string): number => Math.ceil(text.length / 4);

class CostEstimator {
  private readonly symbols = new Map<string, { name: string; kind: CostSymbol["kind"]; input?: string; sites: ast.Position[] }>();
  private readonly symbolNames = new Map<SymbolInfo | string, string>();
  private readonly unbounded: UnboundedConstruct[] = [];
  private readonly bindings = new Map<ast.Identifier, ast.Expression>();
  private readonly blockCosts = new Map<string, CostVector>();
  /** Unbounded recursive blocks whose body is being estimated, with the recursive calls met. */
  private readonly expanding = new Map<string, UnboundedConstruct[]>();
  private readonly recursive: ReadonlySet<string>;

  constructor(
    private readonly analysis: Analysis,
    private readonly options: CostOptions,
  ) {
    for (const node of descendants(analysis.program)) if (node.kind === "Binding" && node.declaration !== null) this.bindings.set(node.name, node.value);
    this.recursive = recursiveBlocks(analysis);
  }

  result(total: CostVector): ProgramCost {
    const tokens: Record<string, { input: Count; output: Count }> = {};
    for (const [model, { input, output }] of [...total.tokens].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) tokens[model] = { input: input.toCount(), output: output.toCount() };
    const calls = total.calls;
    return {
      calls: { session: calls.session.toCount(), judgment: calls.judgment.toCount(), choice: calls.choice.toCount(), extraction: calls.extraction.toCount(), retry: calls.retry.toCount() },
      criticalPath: total.critical.toCount(),
      tokens,
      symbols: [...this.symbols.values()].map(({ sites, ...symbol }) => ({ ...symbol, sites: sites.map(({ line, column }) => ({ line, column })) })),
      unbounded: [...new Map(this.unbounded.map((entry) => [`${entry.line}:${entry.column}`, entry])).values()].sort((a, b) => a.line - b.line || a.column - b.column),
      assumptions: { replyTokens: REPLY_TOKENS, valueTokens: REPLY_TOKENS },
    };
  }

  // -------------------------------------------------------------------------------------------
  // Statements
  // -------------------------------------------------------------------------------------------

  statements(statements: readonly ast.Statement[], depth: number): CostVector {
    return statements.reduce((cost, statement) => cost.then(this.statement(statement, depth)), CostVector.none);
  }

  private statement(statement: ast.Statement, depth: number): CostVector {
    switch (statement.kind) {
      case "Use":
      case "Import":
      case "Agent":
      case "Block":
      case "Input":
        return CostVector.none;
      case "Output":
      case "Binding":
        return this.value(statement.value, depth);
      case "ExpressionStatement":
        return this.value(statement.expression, depth);
      case "If": {
        const conditions = statement.clauses.reduce((cost, clause) => cost.then(this.condition(clause.test, depth)), CostVector.none);
        const branches = [...statement.clauses.map((clause) => this.statements(clause.body, depth)), this.statements(statement.alternate ?? [], depth)];
        return conditions.then(branches.reduce((worst, branch) => worst.or(branch)));
      }
      case "Choice": {
        const question = this.question("choice", statement.criteria, statement.criteria.text.length + statement.options.reduce((sum, option) => sum + option.label.value.length, 0), depth);
        return question.then(statement.options.reduce((worst, option) => worst.or(this.statements(option.body, depth)), CostVector.none));
      }
      case "Throw":
        return statement.message === null ? CostVector.none : this.value(statement.message, depth);
      case "Assert":
        return this.condition(statement.test, depth);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Expressions
  // -------------------------------------------------------------------------------------------

  private value(expression: ast.Expression, depth: number): CostVector {
    switch (expression.kind) {
      case "Identifier":
      case "Number":
      case "Boolean":
      case "Null":
        return CostVector.none;
      case "String":
        return this.parts(expression.parts, depth);
      case "Discretion":
        return this.question("judgment", expression, expression.text.length, depth);
      case "Array":
        return this.all(expression.elements, depth);
      case "Object":
        return this.all(expression.entries.flatMap((entry) => (entry.value === null ? [] : [entry.value])), depth);
      case "Member":
        return this.value(expression.object, depth).then(this.extraction(expression.object));
      case "Index":
        return this.value(expression.object, depth).then(this.value(expression.index, depth)).then(this.extraction(expression.object));
      case "Binary":
        if (expression.operator === "and" || expression.operator === "or") return this.condition(expression, depth);
        return this.value(expression.left, depth).then(this.value(expression.right, depth));
      case "Unary":
        return expression.operator === "not" ? this.condition(expression.operand, depth) : this.value(expression.operand, depth);
      case "Session":
        return this.session(expression, expression.agent, depth);
      case "Resume":
        return this.session(expression, expression.agent, depth);
      case "DoCall":
        return this.all(expression.args, depth).then(this.block(expression, depth + 1));
      case "DoBlock":
        return this.statements(expression.body, depth);
      case "ProgramCall":
        return this.all(expression.args.map((argument) => argument.value), depth).then(this.programCall(expression));
      case "Arrow":
        return this.all(expression.steps, depth);
      case "Pipeline":
        return this.pipeline(expression, depth);
      case "Parallel":
        return expression.branches.reduce((cost, branch) => cost.alongside(this.statement(branch, depth)), CostVector.none);
      case "Repeat": {
        const count = this.number(expression.count, expression);
        return this.value(expression.count, depth).then(this.statements(expression.body, depth).times(count));
      }
      case "ForEach": {
        const items = this.items(expression.collection, expression.collection);
        const body = this.statements(expression.body, depth);
        const collection = this.value(expression.collection, depth).then(this.listExtraction(expression.collection));
        return collection.then(expression.parallel ? body.times(items, Poly.constant(1)) : body.times(items));
      }
      case "Loop":
        return this.loop(expression, depth);
      case "Try":
        return this.statements(expression.body, depth)
          .then(expression.handler === null ? CostVector.none : this.statements(expression.handler.body, depth))
          .then(this.statements(expression.finalizer ?? [], depth));
    }
  }

  /** A boolean as generated code tests it: judgments, comparisons, and a truthy test of anything else. */
  private condition(expression: ast.Expression, depth: number): CostVector {
    switch (expression.kind) {
      case "Discretion":
        return this.value(expression, depth);
      case "Boolean":
        return CostVector.none;
      case "Unary":
        return expression.operator === "not" ? this.condition(expression.operand, depth) : this.value(expression, depth).then(this.truthy(expression));
      case "Binary":
        if (expression.operator === "and" || expression.operator === "or") return this.condition(expression.left, depth).then(this.condition(expression.right, depth));
        if (isComparison(expression.operator)) return this.value(expression, depth);
        return this.value(expression, depth).then(this.truthy(expression));
      default:
        return this.value(expression, depth).then(this.truthy(expression));
    }
  }

  private all(expressions: readonly ast.Expression[], depth: number): CostVector {
    return expressions.reduce((cost, expression) => cost.then(this.value(expression, depth)), CostVector.none);
  }

  /** Interpolated placeholders: reading `{a.b}` may need the model. */
  private parts(parts: readonly ast.StringPart[], depth: number): CostVector {
    return parts.reduce((cost, part) => (part.kind === "Placeholder" && this.analysis.interpolations.has(part) ? cost.then(this.value(part.path, depth)) : cost), CostVector.none);
  }

  // -------------------------------------------------------------------------------------------
  // Model calls
  // -------------------------------------------------------------------------------------------

  private session(session: ast.SessionExpression | ast.ResumeExpression, agentName: ast.Identifier | null, depth: number): CostVector {
    const agent = agentName === null ? undefined : this.analysis.agents.get(agentName.name);
    const property = (key: string): ast.Property | undefined => session.properties.find((candidate) => candidate.key.name === key) ?? agent?.properties.find((candidate) => candidate.key.name === key);
    const model = modelName(property("model")?.value) ?? DEFAULT_MODEL;
    const retry = property("retry")?.value;
    const retries = retry === undefined ? Poly.zero : retry.kind === "PropertyBlock" ? Poly.zero : this.number(retry, session);
    let input = SESSION_OVERHEAD_TOKENS;
    let values = CostVector.none;
    for (const { key, value } of [...(agent?.properties ?? []), ...session.properties]) {
      if (value.kind === "PropertyBlock") continue;
      values = values.then(this.value(value, depth));
      if (key.name === "prompt") input += this.promptTokens(value);
      if (key.name === "context") input += REPLY_TOKENS * Math.max(1, value.kind === "Array" ? value.elements.length : value.kind === "Object" ? value.entries.length : 1);
    }
    if (session.kind === "Session" && session.prompt !== null) input += this.promptTokens(session.prompt);
    const call = CostVector.call("session", model, input, REPLY_TOKENS);
    const retried = retries.isZero ? call : call.then(CostVector.call("retry", model, input, REPLY_TOKENS).times(retries));
    return values.then(retried);
  }

  /** A judgment or a choice: the question's text and the bindings it shows. */
  private question(kind: "judgment" | "choice", discretion: ast.Discretion, characters: number, depth: number): CostVector {
    const visible = this.visibleValues(discretion);
    return this.parts(discretion.parts, depth).then(CostVector.call(kind, DEFAULT_MODEL, QUESTION_OVERHEAD_TOKENS + Math.ceil(characters / 4) + visible * REPLY_TOKENS, ANSWER_TOKENS));
  }

  /** `a.b` / `a[0]`: text may need the model to read; a record or list written in the program does not. */
  private extraction(object: ast.Expression): CostVector {
    return this.literalStructure(object) ? CostVector.none : CostVector.call("extraction", DEFAULT_MODEL, QUESTION_OVERHEAD_TOKENS + REPLY_TOKENS, ANSWER_TOKENS);
  }

  /** The list a `for` or a pipeline reads: a list written in the program, or made by a pipeline, needs no model. */
  private listExtraction(collection: ast.Expression): CostVector {
    if (this.literalStructure(collection) || this.madeList(collection) !== undefined) return CostVector.none;
    return CostVector.call("extraction", DEFAULT_MODEL, QUESTION_OVERHEAD_TOKENS + REPLY_TOKENS, REPLY_TOKENS);
  }

  private truthy(expression: ast.Expression): CostVector {
    return this.literalStructure(expression) ? CostVector.none : CostVector.call("extraction", DEFAULT_MODEL, QUESTION_OVERHEAD_TOKENS + REPLY_TOKENS, ANSWER_TOKENS);
  }

  private promptTokens(value: ast.Expression): number {
    if (value.kind !== "String") return REPLY_TOKENS;
    const interpolated = value.parts.filter((part) => part.kind === "Placeholder" && this.analysis.interpolations.has(part)).length;
    return tokensOf(value.value) + interpolated * REPLY_TOKENS;
  }

  /** Bindings in scope at a judgment (what the runtime shows it). */
  private visibleValues(node: ast.Node): number {
    let count = 0;
    const seen = new Set<string>();
    for (let scope = this.analysis.scopeOf.get(node) ?? null; scope !== null; scope = scope.parent) {
      for (const symbol of scope.symbols.values()) {
        if (seen.has(symbol.name) || !VALUE_KINDS.has(symbol.kind) || symbol.declaration.loc.start.offset > node.loc.start.offset) continue;
        seen.add(symbol.name);
        count++;
      }
    }
    return count;
  }

  // -------------------------------------------------------------------------------------------
  // Repetition
  // -------------------------------------------------------------------------------------------

  private loop(loop: ast.LoopExpression, depth: number): CostVector {
    const max = loop.modifiers.find((modifier) => modifier.key?.name === "max")?.value;
    const iteration = (loop.condition === null ? CostVector.none : this.condition(loop.condition.test, depth)).then(this.statements(loop.body, depth));
    if (max === undefined) {
      if (iteration.isZero) return CostVector.none;
      this.unbounded.push({ line: loop.loc.start.line, column: loop.loc.start.column, reason: "loop without (max: N)" });
      return CostVector.unboundedLike(iteration);
    }
    return this.value(max, depth).then(iteration.times(this.number(max, loop)));
  }

  /**
   * Each stage reads a list (`rt.list` at the stage): the first the source, which may be text; the
   * others the stage before's result, a list no longer than its input, or after a `reduce` a value
   * read anew.
   */
  private pipeline(pipeline: ast.PipelineExpression, depth: number): CostVector {
    let cost = this.value(pipeline.source, depth);
    let items = Poly.zero;
    pipeline.stages.forEach((stage, index) => {
      const previous = pipeline.stages[index - 1];
      if (previous === undefined) {
        cost = cost.then(this.listExtraction(pipeline.source));
        items = this.items(pipeline.source, stage);
      } else if (previous.operator === "reduce") {
        cost = cost.then(this.listExtraction(pipeline));
        items = this.items(undefined, stage);
      }
      const body = this.statements(stage.body, depth);
      if (stage.operator === "pmap") cost = cost.then(body.times(items, Poly.constant(1)));
      else if (stage.operator === "filter") cost = cost.then(body.then(this.truthyOfStage(stage)).times(items));
      else cost = cost.then(body.times(items));
    });
    return cost;
  }

  /** A filter's verdict may need reading when the session did not answer with its tool. */
  private truthyOfStage(stage: ast.PipeStage): CostVector {
    const last = stage.body.at(-1);
    return last?.kind === "ExpressionStatement" ? this.truthy(last.expression) : CostVector.none;
  }

  /**
   * The size of the list `expression` holds: known when it is written in the program, else a symbol
   * (a program input's size, or the list read where `at` is). `derived`: the size a pipeline stage
   * keeps from the stage before.
   */
  private items(expression: ast.Expression | undefined, at: ast.Node): Poly {
    const here = (): Poly => this.symbol(`|list@${at.loc.start.line}:${at.loc.start.column}|`, "items", at);
    if (expression === undefined) return here();
    const made = this.madeList(expression);
    if (made?.kind === "Array") return Poly.constant(made.elements.length);
    // map, filter and pmap keep at most as many items as they read.
    if (made?.kind === "Pipeline") return this.items(made.source, made.stages[0]!);
    if (expression.kind === "Identifier") {
      const symbol = this.analysis.references.get(expression);
      if (symbol !== undefined) return this.symbol(symbol, "items", at, symbol.kind === "input" ? symbol.name : undefined);
    }
    return here();
  }

  /** A repeat count, `max:` or `retry:`: a number written in the program, else a symbol read at run time. */
  private number(expression: ast.Expression, at: ast.Node): Poly {
    if (expression.kind === "Number") return Poly.constant(Math.max(0, Math.ceil(expression.value)));
    if (expression.kind === "Identifier") {
      const symbol = this.analysis.references.get(expression);
      const bound = symbol === undefined ? undefined : this.bindings.get(symbol.declaration);
      if (bound?.kind === "Number" && symbol?.reassigned === false) return Poly.constant(Math.max(0, Math.ceil(bound.value)));
      if (symbol !== undefined) return this.symbol(symbol, "count", at, symbol.kind === "input" ? symbol.name : undefined);
    }
    return this.symbol(`count@${at.loc.start.line}:${at.loc.start.column}`, "count", at);
  }

  private symbol(key: SymbolInfo | string, kind: CostSymbol["kind"], at: ast.Node, input?: string): Poly {
    let name = this.symbolNames.get(key);
    if (name === undefined) {
      const base = typeof key === "string" ? key : kind === "items" ? `|${key.name}|` : key.name;
      name = this.symbols.has(base) ? `${base.replace(/\|$/, "")}@${at.loc.start.line}${base.endsWith("|") ? "|" : ""}` : base;
      this.symbolNames.set(key, name);
      this.symbols.set(name, { name, kind, ...(input === undefined ? {} : { input }), sites: [] });
    }
    const sites = this.symbols.get(name)!.sites;
    if (!sites.some((site) => site.offset === at.loc.start.offset)) sites.push(at.loc.start);
    return Poly.symbol(name);
  }

  /** A list or record written in the program (directly, or as a binding that is never reassigned). */
  private literalStructure(expression: ast.Expression): boolean {
    if (expression.kind === "Array" || expression.kind === "Object" || expression.kind === "Number" || expression.kind === "Boolean" || expression.kind === "Null") return true;
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
    if (made?.kind === "Pipeline" && made.stages.length > 0 && made.stages.every((stage) => stage.operator !== "reduce")) return made;
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Blocks and programs
  // -------------------------------------------------------------------------------------------

  /** A block call at `depth` (the top level calls at 1): its body, unrolled where it recurses. */
  private block(call: ast.DoCall, depth: number): CostVector {
    const block = this.analysis.blocks.get(call.name.name);
    if (block === undefined) return CostVector.none;
    const maxDepth = block.modifiers.find((modifier) => modifier.key?.name === "max_depth")?.value;
    if (depth > (maxDepth?.kind === "Number" ? maxDepth.value : DEFAULT_MAX_DEPTH)) return CostVector.none;
    if (this.recursive.has(block.name.name) && this.unboundedRecursion(block)) return this.unboundedBlock(block, call, depth);
    const key = `${block.name.name}@${depth}`;
    let cost = this.blockCosts.get(key);
    if (cost === undefined) {
      cost = this.statements(block.body, depth);
      this.blockCosts.set(key, cost);
    }
    return cost;
  }

  /**
   * A recursion without `max_depth`: the block's body once, its recursive calls counting nothing,
   * unboundedly often; each recursive call is reported (when the body calls a model at all).
   */
  private unboundedBlock(block: ast.BlockDefinition, call: ast.DoCall, depth: number): CostVector {
    const name = block.name.name;
    const recursion = this.expanding.get(name);
    if (recursion !== undefined) {
      recursion.push({ line: call.loc.start.line, column: call.loc.start.column, reason: `recursion through block ${name} without (max_depth: N)` });
      return CostVector.none;
    }
    let cost = this.blockCosts.get(`${name}@unbounded`);
    if (cost === undefined) {
      const calls: UnboundedConstruct[] = [];
      this.expanding.set(name, calls);
      cost = this.statements(block.body, depth);
      this.expanding.delete(name);
      this.blockCosts.set(`${name}@unbounded`, cost);
      if (!cost.isZero) this.unbounded.push(...calls);
    }
    return CostVector.unboundedLike(cost);
  }

  /** A recursion is unbounded when no block it runs through sets `max_depth`. */
  private unboundedRecursion(block: ast.BlockDefinition): boolean {
    return cycleOf(block.name.name, this.analysis).every((name) => this.analysis.blocks.get(name)?.modifiers.every((modifier) => modifier.key?.name !== "max_depth") ?? true);
  }

  private programCall(call: ast.ProgramCall): CostVector {
    const alias = call.callee.name;
    const imported = this.options.imported?.(alias);
    if (imported === undefined) {
      this.unbounded.push({ line: call.loc.start.line, column: call.loc.start.column, reason: `calls program ${alias}, whose bound is not known here` });
      return CostVector.unboundedLike(CostVector.call("session", DEFAULT_MODEL, SESSION_OVERHEAD_TOKENS, REPLY_TOKENS));
    }
    const argument = new Map(call.args.map((entry) => [entry.name.name, entry.value]));
    const replace = (name: string): Poly => {
      const symbol = imported.symbols.find((candidate) => candidate.name === name);
      const value = symbol?.input === undefined ? undefined : argument.get(symbol.input);
      if (value !== undefined && symbol !== undefined) return symbol.kind === "items" ? this.items(value, call) : this.number(value, call);
      return this.symbol(`${alias}.${name}`, symbol?.kind ?? "items", call);
    };
    for (const entry of imported.unbounded) this.unbounded.push({ line: call.loc.start.line, column: call.loc.start.column, reason: `calls program ${alias}: ${entry.reason} (its line ${entry.line})` });
    return importedVector(imported, replace);
  }
}

const VALUE_KINDS: ReadonlySet<SymbolInfo["kind"]> = new Set(["let", "const", "assigned", "input", "output", "param", "loop-item", "loop-index", "pipe-item", "pipe-accumulator", "catch-error"]);

function isComparison(operator: ast.BinaryOperator): boolean {
  return operator === "==" || operator === "!=" || operator === "<" || operator === "<=" || operator === ">" || operator === ">=" || operator === "is";
}

function modelName(value: ast.Expression | ast.PropertyBlock | undefined): string | undefined {
  if (value?.kind === "Identifier") return value.name;
  if (value?.kind === "String" && value.parts.every((part) => part.kind === "TextPart")) return value.value;
  return undefined;
}

/** A called program's bound as a cost vector of the caller, its symbols replaced. */
function importedVector(cost: ProgramCost, replace: (symbol: string) => Poly): CostVector {
  const poly = (count: Count): Poly => Poly.fromCount(count).substitute(replace);
  const calls = { session: poly(cost.calls.session), judgment: poly(cost.calls.judgment), choice: poly(cost.calls.choice), extraction: poly(cost.calls.extraction), retry: poly(cost.calls.retry) };
  const tokens = new Map(Object.entries(cost.tokens).map(([model, { input, output }]) => [model, { input: poly(input), output: poly(output) }] as const));
  return CostVector.of(calls, poly(cost.criticalPath), tokens);
}

/** Blocks that can reach a call of themselves. */
function recursiveBlocks(analysis: Analysis): ReadonlySet<string> {
  return new Set([...analysis.blocks.keys()].filter((name) => cycleOf(name, analysis).length > 0));
}

/** The blocks on a path from `name` back to itself (empty when it does not recurse). */
function cycleOf(name: string, analysis: Analysis): string[] {
  const calls = (block: string): string[] => {
    const definition = analysis.blocks.get(block);
    return definition === undefined ? [] : [...descendants(definition)].flatMap((node) => (node.kind === "DoCall" ? [node.name.name] : []));
  };
  const reach = new Set<string>();
  const stack = calls(name);
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (reach.has(next)) continue;
    reach.add(next);
    stack.push(...calls(next));
  }
  if (!reach.has(name)) return [];
  return [...reach].filter((block) => block === name || cycleOfReaches(block, name, analysis, calls));
}

function cycleOfReaches(from: string, to: string, analysis: Analysis, calls: (block: string) => string[]): boolean {
  const seen = new Set<string>();
  const stack = calls(from);
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next === to) return true;
    if (seen.has(next) || !analysis.blocks.has(next)) continue;
    seen.add(next);
    stack.push(...calls(next));
  }
  return false;
}
