/**
 * Statements and expressions → TypeScript source text (formatting is left to prettier).
 *
 * Every expression lowers to a `Value`-typed TypeScript expression (it may contain `await`: all
 * generated code runs inside async functions). Constructs that need statements (loops, `try`,
 * `parallel` whose branches bind names) write them to the current statement list first and stand
 * for a `$`-prefixed temporary. Names come from the analysis, never from re-resolving.
 */
import type * as ast from "../../ast.js";
import type { Analysis, Scope, SymbolInfo } from "../2-analyze/types.js";
import { propertyKey, stringLiteral, templateChunk } from "./literals.js";
import type { NameTable } from "./names.js";
/** The construct a judgment answers for (the runtime's `JudgmentAsker`). */
type JudgmentAsker = "if" | "elif" | "until" | "while" | "assert" | "condition";
import { distinctKeys, settingsFields, type ExpressionLowering } from "./settings.js";

/** Symbols a statement list declares with `const`/`let` where they are bound; the rest are declared ahead. */
type DeclaredHere = ReadonlySet<SymbolInfo>;

const declaredKinds: ReadonlySet<SymbolInfo["kind"]> = new Set(["let", "const", "assigned", "output", "input"]);
const valueKinds: ReadonlySet<SymbolInfo["kind"]> = new Set(["let", "const", "assigned", "input", "output", "param", "loop-item", "loop-index", "pipe-item", "pipe-accumulator", "catch-error"]);

export class Lowerer implements ExpressionLowering {
  private lines: string[] = [];
  private readonly temporaries = new Map<string, number>();
  /** While a loop's condition is lowered: the loop's end, since everything its body bound is visible. */
  private judgeOffset: number | undefined;
  /** Set for an expression statement: a block-valued construct then keeps no result. */
  private discardResult = false;
  /** Set for an expression statement: its result is unbound and joins the trail (DIALECT.md, "Context"). */
  private unboundResult = false;
  /** The construct whose condition is being lowered: what a judgment in it is told it answers for. */
  private asker: JudgmentAsker = "condition";
  private readonly symbolNames = new Map<SymbolInfo, string>();
  private catchDepth = 0;
  /** Appends to an outer accumulator inside `parallel for`: the slot each iteration writes its part to. */
  private readonly accumulators = new Map<ast.BindingStatement, string>();
  private readonly declaring = new Set<SymbolInfo>();
  /** Symbols of a conditional loop's body declared before the loop, so its condition (judged first) can name them. */
  private readonly declaredBeforeLoop = new Set<SymbolInfo>();
  /** Block bindings the caller reads (flat names): declared once at program level. */
  readonly promoted: ReadonlySet<SymbolInfo>;
  /**
   * Program-level bindings that blocks and agents read. A block may run before the binding's
   * statement (names are flat): declared ahead as `null`, never in a temporal dead zone.
   */
  private readonly readFromFunctions: ReadonlySet<SymbolInfo>;

  constructor(
    private readonly analysis: Analysis,
    private readonly names: NameTable,
    private readonly dynamicAgents: ReadonlySet<string>,
  ) {
    this.promoted = new Set([...analysis.blockBindingReads.keys()].flatMap((identifier) => analysis.references.get(identifier) ?? []));
    this.readFromFunctions = programSymbolsReadInside([...analysis.blocks.values(), ...analysis.agents.values()], analysis);
  }

  // -------------------------------------------------------------------------------------------
  // Statement lists
  // -------------------------------------------------------------------------------------------

  /**
   * Lowers a statement list. With `scopeNode` (the node that opens the list's scope) the names the
   * scope declares are declared here: at their binding when it is a statement of this list,
   * ahead of everything (`let x: Value = null`) when it is bound deeper (a branch, a parallel
   * branch, a `try` body). `extraDeclarations` are symbols to declare ahead as well.
   */
  statements(statements: readonly ast.Statement[], scopeNode: ast.Node | null, finish?: (value: string) => string, extraDeclarations: readonly SymbolInfo[] = []): string[] {
    const outer = this.lines;
    this.lines = [];
    try {
      const here = this.declareScope(statements, scopeNode, extraDeclarations);
      statements.forEach((statement, index) => {
        const last = index === statements.length - 1;
        const value = this.statement(statement, here, last && finish !== undefined && finish !== effect);
        if (last && finish && value !== undefined) this.push(finish(value));
      });
      const ended = /^(return|throw)\b/.test(this.lines.at(-1) ?? "");
      if (finish && !ended && (statements.length === 0 || !producesValue(statements.at(-1)!))) this.push(finish("null"));
      return this.lines;
    } finally {
      this.lines = outer;
    }
  }

  private push(line: string): void {
    if (line !== "") this.lines.push(line);
  }

  private declareScope(statements: readonly ast.Statement[], scopeNode: ast.Node | null, extra: readonly SymbolInfo[]): DeclaredHere {
    const scope = scopeNode ? this.analysis.scopes.get(scopeNode) : undefined;
    const directNames = new Set<ast.Identifier>();
    for (const statement of statements) {
      if ((statement.kind === "Binding" || statement.kind === "Output" || statement.kind === "Input") && statement.name) directNames.add(statement.name);
    }
    const here = new Set<SymbolInfo>();
    const ahead: SymbolInfo[] = [...extra];
    for (const symbol of scope?.symbols.values() ?? []) {
      if (!declaredKinds.has(symbol.kind) || this.promoted.has(symbol) || this.declaredBeforeLoop.has(symbol)) continue;
      if (directNames.has(symbol.declaration) && !this.readFromFunctions.has(symbol)) here.add(symbol);
      else ahead.push(symbol);
    }
    for (const symbol of ahead) this.lines.push(`let ${extra.includes(symbol) && this.promoted.has(symbol) ? this.lastCallName(symbol) : this.symbolName(symbol)}: Value = null;`);
    return here;
  }

  /** Lowers one statement; returns the statement's value expression when `wantValue` and it has one. */
  private statement(statement: ast.Statement, here: DeclaredHere, wantValue: boolean): string | undefined {
    switch (statement.kind) {
      case "Use":
      case "Import":
      case "Agent":
        return undefined;
      case "Input":
        return this.input(statement, here);
      case "Output":
        return this.output(statement, here, wantValue);
      case "Block":
        this.block(statement);
        return undefined;
      case "Binding":
        return this.binding(statement, here, wantValue);
      case "ExpressionStatement": {
        this.discardResult = !wantValue;
        this.unboundResult = true;
        const value = this.value(statement.expression);
        if (wantValue) return value;
        // Block-valued constructs have written their statements already; what stands for them is inert.
        if (hasEffect(value)) this.lines.push(`${value};`);
        return undefined;
      }
      case "If":
        this.ifStatement(statement);
        return undefined;
      case "Choice":
        this.choice(statement);
        return undefined;
      case "Throw":
        // A bare `throw` in a `catch:` re-raises what was caught.
        if (!statement.message && this.catchDepth > 0) {
          this.lines.push("throw $error;");
          return undefined;
        }
        this.lines.push(`throw rt.fail(${site(statement)}${statement.message ? `, ${this.text(statement.message)}` : ""});`);
        return undefined;
      case "Assert": {
        const message = statement.message ? `, ${this.string(statement.message)}` : "";
        this.lines.push(`if (!(${this.condition(statement.test, "assert")})) throw rt.fail(${site(statement)}${message});`);
        return undefined;
      }
    }
  }

  /** An `input` is declared where it stands, unless it is read beyond its statement list (a loop body, a branch). */
  private input(statement: ast.InputDeclaration, here: DeclaredHere): string {
    const symbol = this.analysis.references.get(statement.name);
    const name = symbol ? this.symbolName(symbol) : this.names.get("value", statement.name.name);
    const prompt = statement.prompt.kind === "String" ? this.string(statement.prompt) : this.templateOf(statement.prompt.parts);
    const discretion = statement.prompt.kind === "Discretion" ? ", discretion: true" : "";
    const timeout = statement.modifiers.find((modifier) => modifier.key?.name === "timeout")?.value;
    const seconds = timeout === undefined ? "" : `, timeoutSeconds: ${timeout.kind === "Number" ? timeout.raw : `Number(${this.value(timeout)})`}`;
    const request = `await rt.input(${site(statement)}, { name: ${stringLiteral(statement.name.name)}, prompt: ${prompt}${discretion}${seconds} })`;
    if (symbol !== undefined && !here.has(symbol)) this.lines.push(`${name} = ${request};`);
    else this.lines.push(symbol?.reassigned ? `let ${name}: Value = ${request};` : `const ${name} = ${request};`);
    return name;
  }

  private output(statement: ast.OutputStatement, here: DeclaredHere, wantValue: boolean): string | undefined {
    const inBlock = this.enclosingBlock(statement) !== undefined;
    if (!statement.name) {
      const value = this.value(statement.value);
      if (inBlock) this.lines.push(`return ${value};`);
      return wantValue && !inBlock ? value : undefined;
    }
    const name = this.assign(statement.name, statement.value, here);
    if (inBlock) this.lines.push(`return ${name};`);
    return wantValue && !inBlock ? name : undefined;
  }

  private binding(statement: ast.BindingStatement, here: DeclaredHere, wantValue: boolean): string | undefined {
    const slot = this.accumulators.get(statement);
    if (slot !== undefined && statement.value.kind === "Binary") {
      const part = this.value(statement.value.right);
      this.lines.push(`${slot} = ${part};`);
      return wantValue ? slot : undefined;
    }
    const name = this.assign(statement.name, statement.value, here, statement.declaration);
    return wantValue ? name : undefined;
  }

  /** `name = value` as a declaration or an assignment, recording the binding for traces. */
  private assign(identifier: ast.Identifier, value: ast.Expression, here: DeclaredHere, declaration: ast.BindingStatement["declaration"] = null): string {
    const symbol = this.analysis.references.get(identifier);
    const name = symbol ? this.symbolName(symbol) : this.names.get("value", identifier.name);
    // `xs = xs + [r]`: the right side runs first, so concurrent branches never lose an append.
    const accumulates = value.kind === "Binary" && value.left.kind === "Identifier" && symbol !== undefined && this.analysis.references.get(value.left) === symbol && containsAwait(value.right);
    const declaring = symbol !== undefined && here.has(symbol) && symbol.declaration === identifier;
    // A binding is not in scope inside its own initializer (`let x = **...**` cannot show `x`).
    if (declaring) this.declaring.add(symbol);
    let lowered: string;
    if (accumulates && value.kind === "Binary") {
      const right = this.temporary("next");
      this.lines.push(`const ${right} = ${this.value(value.right)};`);
      lowered = `${binaryFunction(value.operator)}(${name}, ${right})`;
    } else {
      lowered = this.value(value, identifier.name);
    }
    if (declaring) this.declaring.delete(symbol);
    const bound = `rt.bind(${site(identifier)}, ${stringLiteral(identifier.name)}, ${lowered})`;
    if (declaring) {
      const keyword = symbol.reassigned || declaration === "let" ? "let" : "const";
      this.lines.push(`${keyword} ${name}${keyword === "let" ? ": Value" : ""} = ${bound};`);
    } else {
      this.lines.push(`${name} = ${bound};`);
    }
    return name;
  }

  private block(block: ast.BlockDefinition): void {
    const name = this.names.get("block", block.name.name);
    // A missing argument is `null` (DIALECT.md, "Scoping and names"), never `undefined`.
    const params = block.params.map((param) => `${this.identifierName(param)}: Value = null`).join(", ");
    const body = this.statements(block.body, block, (value) => `return ${value};`);
    // Bindings read outside the block belong to each call's frame; a call that finishes leaves its
    // values where the outside reads them (DIALECT.md, "Scoping and names").
    const own = [...this.promoted].filter((symbol) => blockOf(symbol) === block);
    if (own.length === 0) {
      this.lines.push(`async function ${name}(${params}): Promise<Value> {`, ...body, "}");
      return;
    }
    this.lines.push(
      `async function ${name}(${params}): Promise<Value> {`,
      ...own.map((symbol) => `let ${this.symbolName(symbol)}: Value = null;`),
      "try {",
      ...body,
      "} finally {",
      ...own.map((symbol) => `${this.lastCallName(symbol)} = ${this.symbolName(symbol)};`),
      "}",
      "}",
    );
  }

  private ifStatement(statement: ast.IfStatement): void {
    let open = 0;
    statement.clauses.forEach((clause, index) => {
      const test = this.inScopeLines(() => this.condition(clause.test, index === 0 ? "if" : "elif"));
      if (index === 0) {
        this.lines.push(...test.lines, `if (${test.value}) {`);
      } else if (test.lines.length === 0) {
        this.lines.push(`} else if (${test.value}) {`);
      } else {
        // An `elif` condition that needs statements first: they run only when the earlier tests failed.
        this.lines.push("} else {", ...test.lines, `if (${test.value}) {`);
        open++;
      }
      this.lines.push(...this.statements(clause.body, clause));
    });
    if (statement.alternate) this.lines.push("} else {", ...this.statements(statement.alternate, statement));
    this.lines.push("}", ...Array.from({ length: open }, () => "}"));
  }

  private choice(statement: ast.ChoiceStatement): void {
    const criteria = this.templateOf(statement.criteria.parts);
    const labels = statement.options.map((option) => this.string(option.label)).join(", ");
    const scope = this.judgeScope(statement.criteria);
    this.lines.push(`switch (await rt.choose(${site(statement)}, ${criteria}, [${labels}], ${scope})) {`);
    statement.options.forEach((option, index) => {
      this.lines.push(`case ${index}: {`, ...this.statements(option.body, option), "break;", "}");
    });
    this.lines.push("}");
  }

  // -------------------------------------------------------------------------------------------
  // Expressions
  // -------------------------------------------------------------------------------------------

  /** A `Value`-typed expression. `binding` names the variable it is bound to, for the session's trace. */
  value(expression: ast.Expression, binding?: string): string {
    const discard = this.discardResult;
    this.discardResult = false;
    const unbound = this.unboundResult;
    this.unboundResult = false;
    switch (expression.kind) {
      case "Identifier":
        return this.reference(expression);
      case "String":
        return this.string(expression);
      case "Discretion":
        return this.judge(expression);
      case "Number":
        return expression.raw.replace(/^\./, "0.");
      case "Boolean":
        return String(expression.value);
      case "Null":
        return "null";
      case "Array":
        return `[${expression.elements.map((element) => this.value(element)).join(", ")}]`;
      case "Object": {
        const keys = distinctKeys(expression.entries.map((entry) => (entry.key.kind === "Identifier" ? entry.key.name : entry.key.value)));
        return `{ ${expression.entries.map((entry, index) => `${propertyKey(keys[index]!)}: ${this.objectEntryValue(entry)}`).join(", ")} }`;
      }
      case "Member":
        return `await rt.field(${site(expression.property)}, ${this.value(expression.object)}, ${stringLiteral(expression.property.name)})`;
      case "Index":
        return `await rt.field(${site(expression)}, ${this.value(expression.object)}, ${this.key(expression.index)})`;
      case "Binary":
        return this.binary(expression);
      case "Unary":
        return expression.operator === "not" ? `!(${this.condition(expression.operand)})` : `subtract(0, ${this.value(expression.operand)})`;
      case "Session":
        return this.session(expression, binding, undefined, unbound);
      case "Resume":
        return `await rt.resume(${this.agentReference(expression.agent)}, { ${[`at: ${site(expression)}`, ...this.bindingField(binding), ...(unbound ? [UNBOUND] : []), ...settingsFields(expression.properties, this)].join(", ")} })`;
      case "DoCall":
        return unbound ? `rt.keep(${stringLiteral(`do ${expression.name.name}`)}, ${this.doCall(expression)})` : this.doCall(expression);
      case "DoBlock":
        return this.collect("result", discard, (finish) => this.statements(expression.body, null, finish));
      case "ProgramCall":
        return unbound ? `rt.keep(${stringLiteral(expression.callee.name)}, ${this.programCall(expression)})` : this.programCall(expression);
      case "Arrow":
        return this.arrow(expression, binding, unbound);
      case "Pipeline":
        return this.pipeline(expression);
      case "Parallel":
        return this.parallel(expression);
      case "Repeat":
        return this.repeat(expression, discard);
      case "ForEach":
        return expression.parallel ? this.parallelFor(expression) : this.forEach(expression, discard);
      case "Loop":
        return this.loop(expression, discard);
      case "Try":
        return this.tryExpression(expression, discard);
    }
  }

  /** A `string`-typed expression for a string literal; bound placeholders interpolate. */
  string(literal: ast.StringLiteral): string {
    return this.templateOf(literal.parts);
  }

  text(expression: ast.Expression): string {
    return expression.kind === "String" ? this.string(expression) : `text(${this.value(expression)})`;
  }

  /**
   * A boolean expression for a condition: deterministic parts first, judgments only when they
   * decide. `asker` is the construct the condition belongs to, which its judgments are told.
   */
  condition(expression: ast.Expression, asker?: JudgmentAsker): string {
    if (asker === undefined) return this.conditionPart(expression);
    const outer = this.asker;
    this.asker = asker;
    try {
      return this.conditionPart(expression);
    } finally {
      this.asker = outer;
    }
  }

  private conditionPart(expression: ast.Expression): string {
    switch (expression.kind) {
      case "Discretion":
        return this.judge(expression);
      case "Boolean":
        return String(expression.value);
      case "Unary":
        return expression.operator === "not" ? `!(${this.conditionPart(expression.operand)})` : `await rt.truthy(${site(expression)}, ${this.value(expression)})`;
      case "Binary": {
        if (expression.operator !== "and" && expression.operator !== "or") {
          return isComparison(expression.operator) ? this.comparison(expression) : `await rt.truthy(${site(expression)}, ${this.value(expression)})`;
        }
        const [first, second] = judges(expression.left) && !judges(expression.right) ? [expression.right, expression.left] : [expression.left, expression.right];
        return `(${this.conditionPart(first)} ${expression.operator === "and" ? "&&" : "||"} ${this.conditionPart(second)})`;
      }
      default:
        return `await rt.truthy(${site(expression)}, ${this.value(expression)})`;
    }
  }

  private reference(identifier: ast.Identifier): string {
    const symbol = this.analysis.references.get(identifier);
    if (symbol && this.analysis.blockBindingReads.has(identifier)) return this.lastCallName(symbol);
    if (symbol) return this.symbolName(symbol);
    const agent = this.analysis.agentValues.get(identifier);
    // An agent used as a value (`context: captain`) stands for the agent: its name is what the model sees.
    if (agent) return stringLiteral(agent.name.name);
    throw new Error(`internal: \`${identifier.name}\` at ${identifier.loc.start.line}:${identifier.loc.start.column} was not resolved by analysis`);
  }

  private objectEntryValue(entry: ast.ObjectEntry): string {
    return entry.value ? this.value(entry.value) : entry.key.kind === "Identifier" ? this.reference(entry.key) : this.string(entry.key);
  }

  private key(index: ast.Expression): string {
    if (index.kind === "Number" || (index.kind === "String" && index.parts.every((part) => part.kind === "TextPart"))) return this.value(index);
    let value = this.value(index);
    if (index.kind !== "Identifier") {
      value = this.temporary("key");
      this.lines.push(`const ${value} = ${this.value(index)};`);
    }
    return `typeof ${value} === "number" ? ${value} : text(${value})`;
  }

  private binary(expression: ast.BinaryExpression): string {
    if (expression.operator === "and" || expression.operator === "or" || isComparison(expression.operator)) return `(${this.condition(expression)})`;
    return `${binaryFunction(expression.operator)}(${this.value(expression.left)}, ${this.value(expression.right)})`;
  }

  private comparison(expression: ast.BinaryExpression): string {
    const left = this.value(expression.left);
    const right = this.value(expression.right);
    switch (expression.operator) {
      case "==":
      case "is":
        return `equals(${left}, ${right})`;
      case "!=":
        return `!equals(${left}, ${right})`;
      default:
        return `compare(${left}, ${right}) ${expression.operator} 0`;
    }
  }

  private judge(discretion: ast.Discretion): string {
    const asker = this.asker === "condition" ? "" : `, ${stringLiteral(this.asker)}`;
    return `await rt.judge(${site(discretion)}, ${this.templateOf(discretion.parts)}, ${this.judgeScope(discretion)}${asker})`;
  }

  /** The bindings visible at `node`, by their `.prose` names: what a judgment may look at. */
  private judgeScope(node: ast.Discretion): string {
    const entries = new Map<string, string>();
    const offset = this.judgeOffset ?? node.loc.start.offset;
    for (let scope: Scope | null = this.analysis.scopeOf.get(node) ?? null; scope !== null; scope = scope.parent) {
      for (const symbol of scope.symbols.values()) {
        if (!valueKinds.has(symbol.kind) || entries.has(symbol.name) || this.promoted.has(symbol) || this.declaring.has(symbol)) continue;
        if (symbol.declaration.loc.start.offset > offset) continue;
        entries.set(symbol.name, this.symbolName(symbol));
      }
    }
    const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{ ${sorted.map(([name, tsName]) => (propertyKey(name) === tsName ? tsName : `${propertyKey(name)}: ${tsName}`)).join(", ")} }`;
  }

  private session(session: ast.SessionExpression, binding: string | undefined, previous?: string, unbound = false): string {
    const fields = [`at: ${site(session)}`];
    if (session.agent) fields.push(`agent: ${this.agentReference(session.agent)}`);
    const hasPrompt = session.properties.some((property) => property.key.name === "prompt");
    if (session.prompt && hasPrompt) fields.push(`label: ${this.string(session.prompt)}`);
    else if (session.prompt) fields.push(`prompt: ${this.string(session.prompt)}`);
    if (session.name) fields.push(`label: ${stringLiteral(session.name.name)}`);
    fields.push(...this.bindingField(binding));
    if (unbound) fields.push(UNBOUND);
    fields.push(...settingsFields(session.properties, this, previous === undefined ? undefined : `previous: ${previous}`));
    return `await rt.session({ ${fields.join(", ")} })`;
  }

  private bindingField(binding: string | undefined): string[] {
    return binding === undefined ? [] : [`binding: ${stringLiteral(binding)}`];
  }

  private agentReference(identifier: ast.Identifier): string {
    const name = this.names.get("agent", identifier.name);
    return this.dynamicAgents.has(identifier.name) ? `await ${name}()` : name;
  }

  private doCall(call: ast.DoCall): string {
    const block = this.analysis.blocks.get(call.name.name);
    const maxDepth = block?.modifiers.find((modifier) => modifier.key?.name === "max_depth")?.value;
    const depth = maxDepth?.kind === "Number" ? maxDepth.raw : "undefined";
    const args = call.args.map((argument) => this.value(argument)).join(", ");
    const fn = this.names.get("block", call.name.name);
    return `await rt.block(${site(call)}, ${stringLiteral(call.name.name)}, ${depth}, async () => ${fn}(${args}))`;
  }

  private programCall(call: ast.ProgramCall): string {
    const args = call.args.map((argument) => `${propertyKey(argument.name.name)}: ${this.value(argument.value)}`).join(", ");
    const program = this.names.get("value", call.callee.name);
    return `await rt.call(${site(call)}, ${stringLiteral(call.callee.name)}, ${program}.run, { ${args} })`;
  }

  /** `a -> b -> c`: each session step is given the previous step's result as context. */
  private arrow(expression: ast.ArrowExpression, binding: string | undefined, unbound: boolean): string {
    let previous: string | undefined;
    expression.steps.forEach((step, index) => {
      const last = index === expression.steps.length - 1;
      let lowered = step.kind === "Session" ? this.session(step, last ? binding : undefined, previous, last && unbound) : this.value(step);
      // The chain's final result is what joins the trail.
      if (last && unbound && step.kind !== "Session") lowered = `rt.keep("->", ${lowered})`;
      if (last) {
        previous = lowered;
        return;
      }
      const temporary = this.temporary("step");
      this.lines.push(`const ${temporary} = ${lowered};`);
      previous = temporary;
    });
    return previous ?? "null";
  }

  private pipeline(expression: ast.PipelineExpression): string {
    let source = this.value(expression.source);
    for (const stage of expression.stages) {
      const items = `await rt.list(${site(stage)}, ${source})`;
      const scope = this.analysis.scopes.get(stage);
      const item = scope ? [...scope.symbols.values()].find((symbol) => symbol.kind === "pipe-item") : undefined;
      const itemName = item ? this.symbolName(item) : "item";
      switch (stage.operator) {
        case "pmap": {
          const body = this.statements(stage.body, stage, (value) => `return ${value};`);
          source = `await rt.map(${site(stage)}, ${items}, async (${itemName}) => {\n${body.join("\n")}\n})`;
          break;
        }
        case "map":
        case "filter": {
          const results = this.temporary(stage.operator === "map" ? "mapped" : "kept");
          const finish = stage.operator === "map" ? (value: string) => `${results}.push(${value});` : (value: string) => `if (await rt.truthy(${site(stage)}, ${value})) ${results}.push(${itemName});`;
          const body = this.statements(stage.body, stage, finish);
          this.lines.push(`const ${results}: Value[] = [];`, `for (const ${itemName} of ${items}) {`, ...body, "}");
          source = results;
          break;
        }
        case "reduce": {
          const [accumulator, element] = stage.params;
          const all = this.temporary("items");
          const acc = accumulator ? this.identifierName(accumulator) : "$accumulator";
          const each = element ? this.identifierName(element) : "$item";
          const body = this.statements(stage.body, stage, (value) => `${acc} = ${value};`);
          this.lines.push(`const ${all} = ${items};`, `let ${acc}: Value = ${all}[0] ?? null;`, `for (const ${each} of ${all}.slice(1)) {`, ...body, "}");
          source = acc;
          break;
        }
      }
    }
    return source;
  }

  /**
   * `parallel:` → `rt.parallel` (all branches start together; join and failure policy in the
   * runtime). Branch results are bound after the join, so a failed branch under `on-fail:
   * "continue"` binds its error record.
   */
  private parallel(expression: ast.ParallelExpression): string {
    const options: string[] = [];
    for (const modifier of expression.modifiers) {
      const word = modifier.value.kind === "String" ? modifier.value.value : modifier.value.kind === "Identifier" ? modifier.value.name : undefined;
      if (modifier.key === null && word !== undefined) options.push(`join: ${stringLiteral(word)}`);
      else if (modifier.key?.name === "on-fail" && word !== undefined) options.push(`onFail: ${stringLiteral(word)}`);
      else if (modifier.key?.name === "count" && modifier.value.kind === "Number") options.push(`count: ${modifier.value.raw}`);
    }
    const branches = expression.branches.map((branch) => {
      const body = this.branchBody(branch);
      return `async () => {\n${body.join("\n")}\n}`;
    });
    const results = this.temporary("parallel");
    this.lines.push(`const ${results} = await rt.parallel(${site(expression)}, { ${options.join(", ")} }, [${branches.join(",\n")}]);`);
    const named: string[] = [];
    expression.branches.forEach((branch, index) => {
      const identifier = branch.kind === "Binding" ? branch.name : branch.kind === "Output" ? branch.name : null;
      if (!identifier) {
        // An unbound branch's result joins the trail after the join, in branch order.
        this.lines.push(`rt.keep(${stringLiteral(`parallel branch ${index + 1}`)}, ${results}[${index}] ?? null);`);
        return;
      }
      const symbol = this.analysis.references.get(identifier);
      const name = symbol ? this.symbolName(symbol) : this.names.get("value", identifier.name);
      this.lines.push(`${name} = rt.bind(${site(identifier)}, ${stringLiteral(identifier.name)}, ${results}[${index}] ?? null);`);
      named.push(`${propertyKey(identifier.name)}: ${name}`);
    });
    return named.length === expression.branches.length && named.length > 0 ? `{ ${named.join(", ")} }` : results;
  }

  /** A parallel branch returns its value; a named branch's binding happens after the join. */
  private branchBody(branch: ast.Statement): string[] {
    if (branch.kind === "Binding" || (branch.kind === "Output" && branch.name)) {
      const outer = this.lines;
      this.lines = [];
      try {
        const value = this.value(branch.value, branch.name?.name);
        return [...this.lines, `return ${value};`];
      } finally {
        this.lines = outer;
      }
    }
    return this.statements([branch], null, (value) => `return ${value};`);
  }

  private repeat(expression: ast.RepeatExpression, discard: boolean): string {
    const index = expression.index ? this.identifierName(expression.index) : this.temporary("i");
    const count = expression.count.kind === "Number" ? expression.count.raw : `Number(${this.value(expression.count)})`;
    return this.collect("repeat", discard, (finish) => {
      const loop = this.temporary("loop");
      return sequenced(loop, [`for (let ${index} = 0; ${index} < ${count}; ${index}++) {`, `${loop}.next();`, `rt.iteration(${site(expression)}, ${index});`, ...this.statements(expression.body, expression, finish), "}"]);
    });
  }

  private forEach(expression: ast.ForEachExpression, discard: boolean): string {
    const item = this.identifierName(expression.item);
    const items = `await rt.list(${site(expression.collection)}, ${this.value(expression.collection)})`;
    const head = expression.index ? `for (const [${this.identifierName(expression.index)}, ${item}] of (${items}).entries()) {` : `for (const ${item} of ${items}) {`;
    const loop = this.temporary("loop");
    if (discard) {
      this.lines.push(...sequenced(loop, [head, `${loop}.next();`, ...this.statements(expression.body, expression, effect), "}"]));
      return "null";
    }
    const results = this.temporary("results");
    const body = this.statements(expression.body, expression, (value) => `${results}.push(${value});`);
    this.lines.push(`const ${results}: Value[] = [];`, ...sequenced(loop, [head, `${loop}.next();`, ...body, "}"]));
    return results;
  }

  /**
   * `parallel for` → `rt.map`. An outer accumulator appended to in the body (`xs = xs + [r]`)
   * must not race: each iteration records its part in a slot of its own, and the parts are
   * appended after the join, in item order, as a sequential `for` would have.
   */
  private parallelFor(expression: ast.ForEachExpression): string {
    const item = this.identifierName(expression.item);
    const index = expression.index ? this.identifierName(expression.index) : "$index";
    const loopScope = this.analysis.scopes.get(expression);
    const accumulating = expression.body.filter((statement): statement is ast.BindingStatement => {
      if (statement.kind !== "Binding" || statement.declaration !== null || statement.value.kind !== "Binary" || statement.value.operator !== "+") return false;
      const symbol = this.analysis.references.get(statement.name);
      return symbol !== undefined && symbol.scope !== loopScope && statement.value.left.kind === "Identifier" && this.analysis.references.get(statement.value.left) === symbol;
    });
    const items = `await rt.list(${site(expression.collection)}, ${this.value(expression.collection)})`;
    if (accumulating.length === 0) {
      const body = this.statements(expression.body, expression, (value) => `return ${value};`);
      return `await rt.map(${site(expression)}, ${items}, async (${item}${expression.index ? `, ${index}` : ""}) => {\n${body.join("\n")}\n})`;
    }
    const parts = this.temporary("parts");
    const list = this.temporary("items");
    accumulating.forEach((statement, slot) => this.accumulators.set(statement, `${parts}[${slot}]![${index}]`));
    const body = this.statements(expression.body, expression, (value) => `return ${value};`);
    const results = this.temporary("results");
    this.lines.push(
      `const ${list} = ${items};`,
      `const ${parts}: Value[][] = [${accumulating.map(() => "[]").join(", ")}];`,
      `const ${results} = await rt.map(${site(expression)}, ${list}, async (${item}, ${index}) => {`,
      ...body,
      "});",
      `for (let $position = 0; $position < ${list}.length; $position++) {`,
    );
    accumulating.forEach((statement, slot) => {
      const name = this.identifierName(statement.name);
      const operator = statement.value.kind === "Binary" ? binaryFunction(statement.value.operator) : "add";
      this.lines.push(
        `const $part${slot} = ${parts}[${slot}]![$position];`,
        `if ($part${slot} !== undefined) ${name} = rt.bind(${site(statement.name)}, ${stringLiteral(statement.name.name)}, ${operator}(${name}, $part${slot}));`,
      );
    });
    this.lines.push("}");
    return results;
  }

  /**
   * `loop`, `loop until`, `loop while`: a counted `for` bounded by `max`. The condition is judged
   * before each iteration, the first included (prose.md, "Unbounded Loops": check, exit when it is
   * satisfied or `max` is reached, else run the body). The condition (`until` or `while`) sees what
   * the body binds, as analysis resolved it: the loop's own bindings are declared before the loop
   * (`null` before the first iteration, then the last iteration's values), as the bindings that stay
   * visible after the loop already are.
   */
  private loop(expression: ast.LoopExpression, discard: boolean): string {
    const index = expression.index ? this.identifierName(expression.index) : this.temporary("iteration");
    const max = expression.modifiers.find((modifier) => modifier.key?.name === "max")?.value;
    const bound = max === undefined ? "" : max.kind === "Number" ? ` ${index} < ${max.raw}` : ` ${index} < Number(${this.value(max)})`;
    const condition = expression.condition;
    const declared: string[] = [];
    if (condition !== null) {
      for (const symbol of this.analysis.scopes.get(expression)?.symbols.values() ?? []) {
        if (!declaredKinds.has(symbol.kind) || this.promoted.has(symbol)) continue;
        this.declaredBeforeLoop.add(symbol);
        declared.push(`let ${this.symbolName(symbol)}: Value = null;`);
      }
    }
    return this.collect("loop", discard, (finish) => {
      // In a block of their own: their names are those of the loop's scope, which a sibling may reuse.
      const loop = this.temporary("loop");
      const lines = [`for (let ${index} = 0;${bound}; ${index}++) {`, `${loop}.next();`];
      if (condition !== null) {
        this.judgeOffset = expression.loc.end.offset;
        const test = this.inScopeLines(() => this.condition(condition.test, condition.mode));
        this.judgeOffset = undefined;
        lines.push(...test.lines, condition.mode === "until" ? `if (${test.value}) break;` : `if (!(${test.value})) break;`);
      }
      lines.push(`rt.iteration(${site(expression)}, ${index});`, ...this.statements(expression.body, expression, finish));
      lines.push("}");
      return [...(declared.length > 0 ? ["{", ...declared] : []), ...sequenced(loop, lines), ...(declared.length > 0 ? ["}"] : [])];
    });
  }

  private tryExpression(expression: ast.TryExpression, discard: boolean): string {
    return this.collect("attempt", discard, (finish) => {
      const lines = ["try {", ...this.statements(expression.body, null, finish)];
      const handler = expression.handler;
      if (handler) {
        lines.push("} catch ($error) {", "rt.catchable($error);");
        if (handler.param) lines.push(`const ${this.identifierName(handler.param)}: Value = $error instanceof Error ? $error.message : String($error);`);
        this.catchDepth++;
        lines.push(...this.statements(handler.body, handler, finish));
        this.catchDepth--;
      }
      if (expression.finalizer) lines.push("} finally {", ...this.statements(expression.finalizer, null));
      lines.push("}");
      return lines;
    });
  }

  /**
   * A construct whose value is its body's last value: `let $name: Value = null;` and the
   * construct's statements, which set it; stands for it. Discarded, the last value is only awaited.
   */
  private collect(kind: string, discard: boolean, build: (finish: (value: string) => string) => string[]): string {
    if (discard) {
      this.lines.push(...build(effect));
      return "null";
    }
    const target = this.temporary(kind);
    this.lines.push(`let ${target}: Value = null;`);
    this.lines.push(...build((value) => `${target} = ${value};`));
    return target;
  }

  private inScopeLines(lower: () => string): { lines: string[]; value: string } {
    const outer = this.lines;
    this.lines = [];
    try {
      const value = lower();
      return { lines: this.lines, value };
    } finally {
      this.lines = outer;
    }
  }

  /** Template literal (or plain string literal) for string parts; bound placeholders interpolate via `text()`. */
  templateOf(parts: readonly ast.StringPart[]): string {
    const chunks: (string | ast.Placeholder)[] = [];
    for (const part of parts) {
      const interpolated = part.kind === "Placeholder" && this.analysis.interpolations.has(part);
      const literal = part.kind === "TextPart" ? part.value : interpolated ? undefined : part.text;
      if (literal === undefined) chunks.push(part as ast.Placeholder);
      else if (typeof chunks.at(-1) === "string") chunks[chunks.length - 1] += literal;
      else chunks.push(literal);
    }
    if (chunks.every((chunk) => typeof chunk === "string")) {
      const value = chunks.join("");
      return value.includes("\n") ? `\`${templateChunk(value)}\`` : stringLiteral(value);
    }
    const body = chunks.map((chunk) => (typeof chunk === "string" ? templateChunk(chunk) : `\${text(${this.value(chunk.path)})}`)).join("");
    return `\`${body}\``;
  }

  // -------------------------------------------------------------------------------------------
  // Names
  // -------------------------------------------------------------------------------------------

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
    for (let scope = symbol.scope.parent; scope !== null; scope = scope.parent) if (scope.symbols.has(symbol.name)) depth++;
    const name = depth === 1 ? base : `${base}$${depth}`;
    this.symbolNames.set(symbol, name);
    return name;
  }

  /** Where the outside reads a block binding: the value the block's most recently finished call gave it. */
  private lastCallName(symbol: SymbolInfo): string {
    return `${this.symbolName(symbol)}$lastCall`;
  }

  private identifierName(identifier: ast.Identifier): string {
    const symbol = this.analysis.references.get(identifier);
    return symbol ? this.symbolName(symbol) : this.names.get("value", identifier.name);
  }

  private temporary(kind: string): string {
    const count = (this.temporaries.get(kind) ?? 0) + 1;
    this.temporaries.set(kind, count);
    return count === 1 ? `$${kind}` : `$${kind}${count}`;
  }

  private enclosingBlock(node: ast.Node): Scope | undefined {
    for (let scope = this.analysis.scopeOf.get(node) ?? null; scope !== null; scope = scope.parent) {
      if (scope.kind === "block" && scope.node.kind === "Block") return scope;
    }
    return undefined;
  }
}

/** `{ line, column }` of a node, as every runtime call carries it. */
export function site(node: { readonly loc: ast.SourceRange }): string {
  return `{ line: ${node.loc.start.line}, column: ${node.loc.start.column} }`;
}

function programSymbolsReadInside(definitions: readonly (ast.BlockDefinition | ast.AgentDefinition)[], analysis: Analysis): Set<SymbolInfo> {
  const found = new Set<SymbolInfo>();
  const inside = (node: ast.Node) => definitions.some((definition) => node.loc.start.offset >= definition.loc.start.offset && node.loc.end.offset <= definition.loc.end.offset);
  for (const [identifier, symbol] of analysis.references) {
    if (symbol.scope.kind === "program" && inside(identifier) && symbol.declaration !== identifier) found.add(symbol);
  }
  // A judgment shows the program's bindings declared above it: inside a block it reads them too,
  // and the block may be called before their statements ran.
  for (const [node, scope] of analysis.scopeOf) {
    if (node.kind !== "Discretion" || !inside(node)) continue;
    let program: Scope | null = scope;
    while (program !== null && program.kind !== "program") program = program.parent;
    for (const symbol of program?.symbols.values() ?? []) {
      if (declaredKinds.has(symbol.kind) && symbol.declaration.loc.start.offset < node.loc.start.offset) found.add(symbol);
    }
  }
  return found;
}

/** The block definition whose body declares `symbol`, if any. */
function blockOf(symbol: SymbolInfo): ast.Node | undefined {
  for (let scope: Scope | null = symbol.scope; scope !== null; scope = scope.parent) if (scope.kind === "block" && scope.node.kind === "Block") return scope.node;
  return undefined;
}

/** A session field: its result joins the trail. */
const UNBOUND = "unbound: true";

/**
 * A sequential loop's lines with each iteration a sequence of its own (`loop.next()` in the body
 * starts one); the enclosing sequence is back when the loop ends, however it ends.
 */
function sequenced(loop: string, loopLines: readonly string[]): string[] {
  return [`const ${loop} = rt.loop();`, "try {", ...loopLines, "} finally {", `${loop}.end();`, "}"];
}

/** A value nobody reads: kept only when computing it does something. */
function effect(value: string): string {
  return hasEffect(value) ? `${value};` : "";
}

/** Whether a lowered expression does something: it waits on the runtime, or adds to the trail. */
function hasEffect(value: string): boolean {
  return value.startsWith("await ") || value.startsWith("rt.keep(");
}

function producesValue(statement: ast.Statement): boolean {
  return statement.kind === "ExpressionStatement" || statement.kind === "Binding" || (statement.kind === "Output" && statement.name !== null) || statement.kind === "Input";
}

function isComparison(operator: ast.BinaryOperator): boolean {
  return ["==", "!=", "<", "<=", ">", ">=", "is"].includes(operator);
}

function binaryFunction(operator: ast.BinaryOperator): string {
  switch (operator) {
    case "-":
      return "subtract";
    case "*":
      return "multiply";
    case "/":
      return "divide";
    default:
      return "add";
  }
}

/** Whether a condition holds a `**...**` judgment. */
function judges(expression: ast.Expression): boolean {
  if (expression.kind === "Discretion") return true;
  if (expression.kind === "Binary") return judges(expression.left) || judges(expression.right);
  if (expression.kind === "Unary") return judges(expression.operand);
  return false;
}

/** Whether lowering an expression involves waiting on the runtime (anything but plain data and names). */
function containsAwait(expression: ast.Expression): boolean {
  switch (expression.kind) {
    case "Identifier":
    case "String":
    case "Number":
    case "Boolean":
    case "Null":
      return false;
    case "Array":
      return expression.elements.some(containsAwait);
    case "Binary":
      return containsAwait(expression.left) || containsAwait(expression.right);
    default:
      return true;
  }
}

