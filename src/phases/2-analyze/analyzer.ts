import type * as ast from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeMessages as m } from "../../diagnostics/messages.js";
import { checkModifiers } from "./modifiers.js";
import { checkAgentProperties, checkSessionProperties, isPersistent, type PropertyContext } from "./properties.js";
import { LexicalScope, type MutableSymbol } from "./scope.js";
import { closest } from "./suggest.js";
import type { Analysis, Scope } from "./types.js";

/** The inputs and outputs of a program that `use` imports, for checking calls to it. */
export interface ImportedProgram {
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
}

export interface AnalyzeOptions {
  /** Parses and analyses a local `use "./x.prose"` import; undefined when it cannot be read. */
  readonly resolveImport?: (path: string) => ImportedProgram | undefined;
}

/** Statements that do not execute anything: inputs before the first of the others are parameters. */
const declarative: ReadonlySet<ast.Statement["kind"]> = new Set(["Use", "Import", "Input", "Agent", "Block"]);

/**
 * One walk over the program in source order: scopes and symbols are built as declarations are
 * met, every reference is resolved where it stands, and every construct is validated.
 */
export class Analyzer implements PropertyContext {
  readonly diagnostics: Diagnostic[] = [];
  private readonly references = new Map<ast.Identifier, MutableSymbol>();
  private readonly interpolations = new Map<ast.Placeholder, MutableSymbol>();
  private readonly scopes = new Map<ast.Node, Scope>();
  private readonly scopeOf = new Map<ast.Node, Scope>();
  readonly agents = new Map<string, ast.AgentDefinition>();
  private readonly blocks = new Map<string, ast.BlockDefinition>();
  private readonly imports = new Map<string, { statement: ast.UseStatement; program: ImportedProgram | undefined }>();
  readonly skills = new Set<string>();
  private readonly parameters: ast.InputDeclaration[] = [];
  private readonly runtimeInputs: ast.InputDeclaration[] = [];
  private readonly outputs: string[] = [];
  private readonly outputDeclarations = new Map<Scope, Map<string, ast.Identifier>>();
  private readonly inputDeclarations = new Map<string, ast.Identifier>();
  /** Names declared in branches and loop bodies, declared ahead in the enclosing scope. */
  private readonly hoisted = new Map<ast.Identifier, MutableSymbol>();
  private readonly blockCalls: ast.DoCall[] = [];
  private readonly agentValues = new Map<ast.Identifier, ast.AgentDefinition>();
  private readonly blockBindingReads = new Map<ast.Identifier, ast.BlockDefinition>();
  /** Bindings that hold the result of a program call, for `result.output` checks. */
  private readonly programResults = new Map<MutableSymbol, string>();
  private scope: LexicalScope;

  constructor(
    private readonly program: ast.Program,
    private readonly options: AnalyzeOptions,
  ) {
    this.scope = new LexicalScope("program", program, null);
    this.scopes.set(program, this.scope);
  }

  run(): Analysis {
    this.collectDefinitions(this.program.body);
    let executed = false;
    for (const statement of this.program.body) {
      if (statement.kind === "Input" && !executed) this.parameters.push(statement);
      if (!declarative.has(statement.kind)) executed = true;
      this.statement(statement);
    }
    return {
      program: this.program,
      diagnostics: this.diagnostics,
      references: this.references,
      interpolations: this.interpolations,
      scopes: this.scopes,
      scopeOf: this.scopeOf,
      agents: this.agents,
      blocks: this.blocks,
      parameters: this.parameters,
      runtimeInputs: this.runtimeInputs,
      outputs: this.outputs,
      imports: new Map([...this.imports].map(([name, entry]) => [name, entry.statement])),
      agentValues: this.agentValues,
      blockBindingReads: this.blockBindingReads,
    };
  }

  report(diagnostic: Diagnostic): void {
    this.diagnostics.push(diagnostic);
  }

  // -------------------------------------------------------------------------------------------
  // Definitions are hoisted: agents, blocks, imports and skills are known before the walk.
  // -------------------------------------------------------------------------------------------

  private collectDefinitions(statements: readonly ast.Statement[]): void {
    for (const statement of statements) {
      switch (statement.kind) {
        case "Agent": {
          const first = this.agents.get(statement.name.name);
          if (first) this.report(m.duplicateAgent(statement.name.loc, statement.name.name, first.name.loc.start.line));
          else this.agents.set(statement.name.name, statement);
          break;
        }
        case "Block": {
          const first = this.blocks.get(statement.name.name);
          if (first) this.report(m.duplicateBlock(statement.name.loc, statement.name.name, first.name.loc.start.line));
          else this.blocks.set(statement.name.name, statement);
          this.collectDefinitions(statement.body);
          break;
        }
        case "Import":
          this.skills.add(statement.skill.value);
          break;
        case "Use":
          this.use(statement);
          break;
      }
    }
  }

  private use(statement: ast.UseStatement): void {
    const path = statement.source.value;
    if (path.trim() === "") {
      this.report(m.emptyUsePath(statement.source.loc));
      return;
    }
    const local = /^\.\.?\//.test(path);
    const registry = /^(@?[\w.-]+\/[\w.-]+|https?:\/\/\S+)$/.test(path);
    if (!local && !registry) {
      this.report(m.invalidUsePath(statement.source.loc, path));
      return;
    }
    const name = statement.alias?.name ?? path.replace(/\.prose$/, "").split("/").pop() ?? path;
    this.skills.add(name);
    const first = [...this.imports.values()].find((entry) => entry.statement.source.value === path || importName(entry.statement) === name);
    if (first) {
      this.report(m.duplicateUse(statement.loc, quoteName(path), first.statement.loc.start.line));
      return;
    }
    if (!local) {
      this.report(m.registryImport(statement.source.loc, path));
      return;
    }
    this.imports.set(name, { statement, program: this.options.resolveImport?.(path) });
  }

  // -------------------------------------------------------------------------------------------
  // Statements
  // -------------------------------------------------------------------------------------------

  private body(statements: readonly ast.Statement[]): void {
    for (const statement of statements) this.statement(statement);
  }

  private statement(statement: ast.Statement): void {
    this.scopeOf.set(statement, this.scope);
    switch (statement.kind) {
      case "Use":
        if (statement.alias) this.references.set(statement.alias, this.declareQuietly("program", statement.alias));
        return;
      case "Import":
        this.report(m.legacyImport(statement.loc));
        return;
      case "Input":
        return this.input(statement);
      case "Output":
        return this.output(statement);
      case "Agent":
        return this.agent(statement);
      case "Block":
        return this.block(statement);
      case "Binding":
        return this.binding(statement);
      case "ExpressionStatement":
        return this.expression(statement.expression);
      case "If":
        this.hoist([...statement.clauses.map((clause) => clause.body), statement.alternate ?? []]);
        for (const clause of statement.clauses) {
          this.condition(clause.test);
          this.withScope("branch", clause, () => this.body(clause.body));
        }
        if (statement.alternate) {
          const alternate = statement.alternate;
          this.withScope("branch", statement, () => this.body(alternate));
        }
        return;
      case "Choice": {
        this.discretion(statement.criteria);
        this.hoist(statement.options.map((option) => option.body));
        const labels = new Set<string>();
        for (const option of statement.options) {
          if (labels.has(option.label.value)) this.report(m.duplicateOptionLabel(option.label.loc, option.label.value));
          labels.add(option.label.value);
          this.text(option.label);
          this.withScope("branch", option, () => this.body(option.body));
        }
        return;
      }
      case "Throw":
        if (statement.message) this.expression(statement.message);
        return;
      case "Assert":
        this.condition(statement.test);
        if (statement.message) this.text(statement.message);
        return;
    }
  }

  private input(statement: ast.InputDeclaration): void {
    const first = this.inputDeclarations.get(statement.name.name);
    if (first) {
      this.report(m.duplicateInput(statement.name.loc, statement.name.name, first.loc.start.line));
      return;
    }
    this.inputDeclarations.set(statement.name.name, statement.name);
    // Any input that is not a parameter (later at top level, or nested anywhere) is asked mid-program.
    if (!this.parameters.includes(statement)) this.runtimeInputs.push(statement);
    if (statement.prompt.kind === "Discretion") this.discretion(statement.prompt);
    else this.text(statement.prompt);
    checkModifiers(this, "input", statement.modifiers);
    this.declare("input", statement.name);
  }

  private output(statement: ast.OutputStatement): void {
    this.expression(statement.value);
    if (!statement.name) return;
    const name = statement.name;
    const declared = this.outputDeclarations.get(this.scope) ?? new Map<string, ast.Identifier>();
    this.outputDeclarations.set(this.scope, declared);
    const first = declared.get(name.name);
    if (first) {
      this.report(m.duplicateOutput(name.loc, name.name, first.loc.start.line));
      return;
    }
    declared.set(name.name, name);
    if (!this.scope.enclosingBlock() && !this.outputs.includes(name.name)) this.outputs.push(name.name);
    const hoisted = this.hoisted.get(name);
    // Setting an output again (in another branch, say) updates the same binding.
    const existing = this.scope.lookup(name.name, name.loc.start.offset);
    if (hoisted) {
      this.bindHoisted(name, hoisted);
    } else if (existing && existing.kind !== "const") {
      existing.reassigned = true;
      this.references.set(name, existing);
    } else {
      this.declare("output", name);
    }
    this.recordProgramResult(name, statement.value);
  }

  private agent(statement: ast.AgentDefinition): void {
    if (this.scope.lookup(statement.name.name, Number.MAX_SAFE_INTEGER)) this.report(m.nameIsAgent(statement.name.loc, statement.name.name));
    // Agent prompts may interpolate program-level names (inputs, consts) wherever they are declared.
    this.withScope("block", statement, () => checkAgentProperties(this, statement.properties));
  }

  private block(statement: ast.BlockDefinition): void {
    checkModifiers(this, "block", statement.modifiers);
    this.withScope("block", statement, () => {
      for (const param of statement.params) this.declare("param", param);
      this.body(statement.body);
    });
  }

  private binding(statement: ast.BindingStatement): void {
    this.expression(statement.value);
    const name = statement.name;
    const hoisted = this.hoisted.get(name);
    if (hoisted) {
      this.bindHoisted(name, hoisted);
    } else if (statement.declaration) {
      this.declare(statement.declaration, name);
    } else {
      const existing = this.scope.lookup(name.name, name.loc.start.offset);
      if (existing) {
        if (existing.kind === "const") this.report(m.constReassignment(name.loc, name.name, existing.declaration.loc.start.line));
        existing.reassigned = true;
        this.references.set(name, existing);
      } else {
        this.declare("assigned", name);
      }
    }
    this.recordProgramResult(name, statement.value);
  }

  private recordProgramResult(name: ast.Identifier, value: ast.Expression): void {
    const symbol = this.references.get(name);
    if (symbol && value.kind === "ProgramCall") this.programResults.set(symbol, value.callee.name);
  }

  // -------------------------------------------------------------------------------------------
  // Expressions
  // -------------------------------------------------------------------------------------------

  expression(expression: ast.Expression): void {
    this.scopeOf.set(expression, this.scope);
    switch (expression.kind) {
      case "Identifier":
        return this.reference(expression);
      case "String":
        return this.text(expression);
      case "Discretion":
        return this.discretion(expression);
      case "Number":
      case "Boolean":
      case "Null":
        return;
      case "Array":
        return expression.elements.forEach((element) => this.expression(element));
      case "Object":
        for (const entry of expression.entries) {
          if (entry.value) this.expression(entry.value);
          else if (entry.key.kind === "Identifier") this.reference(entry.key);
        }
        return;
      case "Member":
        this.expression(expression.object);
        return this.checkProgramOutput(expression);
      case "Index":
        this.expression(expression.object);
        return this.expression(expression.index);
      case "Binary":
        this.expression(expression.left);
        return this.expression(expression.right);
      case "Unary":
        return this.expression(expression.operand);
      case "Session":
        return this.session(expression);
      case "Resume":
        return this.resume(expression);
      case "DoCall":
        return this.doCall(expression);
      case "DoBlock":
        return this.body(expression.body);
      case "ProgramCall":
        return this.programCall(expression);
      case "Arrow":
        return expression.steps.forEach((step) => this.expression(step));
      case "Pipeline":
        this.expression(expression.source);
        for (const stage of expression.stages) {
          this.withScope("pipe", stage, () => {
            if (stage.operator === "reduce") stage.params.forEach((param) => this.declare("pipe-accumulator", param));
            else this.declareImplicit("pipe-item", "item", stage);
            this.body(stage.body);
          });
        }
        return;
      case "Parallel":
        checkModifiers(this, "parallel", expression.modifiers, expression.branches.length);
        return this.body(expression.branches);
      case "Repeat":
        this.positiveCount(expression.count, "the repeat count");
        this.expression(expression.count);
        this.hoist([expression.body]);
        return this.withScope("loop", expression, () => {
          if (expression.index) this.declare("loop-index", expression.index);
          this.body(expression.body);
        });
      case "ForEach":
        this.expression(expression.collection);
        checkModifiers(this, "for", expression.modifiers);
        if (!expression.parallel) this.hoist([expression.body]);
        return this.withScope("loop", expression, () => {
          this.declare("loop-item", expression.item);
          if (expression.index) this.declare("loop-index", expression.index);
          this.body(expression.body);
        });
      case "Loop":
        checkModifiers(this, "loop", expression.modifiers);
        if (!expression.modifiers.some((modifier) => modifier.key?.name === "max")) this.report(m.unboundedLoop(expression.loc));
        this.hoist([expression.body]);
        return this.withScope("loop", expression, () => {
          if (expression.index) this.declare("loop-index", expression.index);
          this.body(expression.body);
          // The condition is judged before each iteration, and sees what the body binds (the last iteration's values).
          if (expression.condition) this.condition(expression.condition.test, Number.MAX_SAFE_INTEGER);
        });
      case "Try":
        if (!expression.handler && !expression.finalizer) this.report(m.tryWithoutHandler(expression.loc));
        this.body(expression.body);
        if (expression.handler) {
          const handler = expression.handler;
          this.hoist([handler.body]);
          this.withScope("catch", handler, () => {
            if (handler.param) this.declare("catch-error", handler.param);
            this.body(handler.body);
          });
        }
        if (expression.finalizer) this.body(expression.finalizer);
        return;
    }
  }

  /** `if` / `loop` / `assert` conditions: any expression; `**...**` parts are judged. */
  private condition(test: ast.Expression, offset?: number): void {
    if (offset === undefined) return this.expression(test);
    const saved = this.referenceOffset;
    this.referenceOffset = offset;
    this.expression(test);
    this.referenceOffset = saved;
  }

  /** Overrides the position references are resolved at (loop conditions see the whole body). */
  private referenceOffset: number | undefined;

  private reference(identifier: ast.Identifier): void {
    const symbol = this.resolve(identifier.name, identifier.loc.start.offset);
    if (symbol) {
      this.references.set(identifier, symbol);
      return;
    }
    const agent = this.agents.get(identifier.name);
    if (agent) {
      this.agentValues.set(identifier, agent);
      return;
    }
    const fromBlock = this.readBlockBinding(identifier);
    if (fromBlock) {
      this.references.set(identifier, fromBlock);
      return;
    }
    this.report(m.undefinedName(identifier.loc, identifier.name, closest(identifier.name, this.scope.visibleNames())));
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
  private bindingOfCalledBlock(identifier: ast.Identifier): { symbol: MutableSymbol; block: ast.BlockDefinition } | undefined {
    for (const call of this.blockCalls) {
      if (call.loc.end.offset > identifier.loc.start.offset) continue;
      const block = this.blocks.get(call.name.name);
      const symbol = block ? (this.scopes.get(block) as LexicalScope | undefined)?.symbols.get(identifier.name) : undefined;
      if (block && symbol && symbol.kind !== "param") return { symbol, block };
    }
    return undefined;
  }

  private resolve(name: string, offset: number): MutableSymbol | undefined {
    return this.scope.lookup(name, this.referenceOffset ?? offset);
  }

  private session(session: ast.SessionExpression): void {
    if (session.agent) this.agentReference(session.agent);
    if (session.prompt) {
      this.text(session.prompt);
      this.checkPrompt(session.prompt, "session");
    }
    const hasPrompt = session.properties.some((property) => property.key.name === "prompt");
    if (!session.prompt && !session.agent && !hasPrompt) this.report(m.sessionWithoutPrompt(session.loc));
    checkSessionProperties(this, session.properties);
  }

  private resume(resume: ast.ResumeExpression): void {
    const agent = this.agentReference(resume.agent);
    if (agent && !isPersistent(agent)) this.report(m.resumeWithoutPersist(resume.agent.loc, resume.agent.name));
    checkSessionProperties(this, resume.properties);
  }

  private agentReference(name: ast.Identifier): ast.AgentDefinition | undefined {
    const agent = this.agents.get(name.name);
    if (!agent) this.report(m.undefinedAgent(name.loc, name.name, closest(name.name, this.agents.keys())));
    return agent;
  }

  private doCall(call: ast.DoCall): void {
    call.args.forEach((argument) => this.expression(argument));
    this.blockCalls.push(call);
    const block = this.blocks.get(call.name.name);
    if (!block) {
      this.report(m.undefinedBlock(call.name.loc, call.name.name, closest(call.name.name, this.blocks.keys())));
      return;
    }
    if (block.params.length !== call.args.length) {
      this.report(m.arityMismatch(call.loc, call.name.name, block.params.length, call.args.length));
    }
  }

  private programCall(call: ast.ProgramCall): void {
    call.args.forEach((argument) => this.expression(argument.value));
    const imported = this.imports.get(call.callee.name);
    if (!imported) {
      this.report(m.unknownProgram(call.callee.loc, call.callee.name, closest(call.callee.name, this.imports.keys())));
      return;
    }
    const program = imported.program;
    if (!program) return;
    const given = new Set(call.args.map((argument) => argument.name.name));
    for (const argument of call.args) {
      if (!program.inputs.includes(argument.name.name)) {
        this.report(m.unknownProgramInput(argument.name.loc, call.callee.name, argument.name.name, closest(argument.name.name, program.inputs)));
      }
    }
    for (const input of program.inputs) {
      if (!given.has(input)) this.report(m.missingProgramInput(call.callee.loc, call.callee.name, input));
    }
  }

  private checkProgramOutput(member: ast.MemberExpression): void {
    if (member.object.kind !== "Identifier") return;
    const symbol = this.references.get(member.object);
    const programName = symbol && this.programResults.get(symbol);
    const program = programName ? this.imports.get(programName)?.program : undefined;
    if (program && !program.outputs.includes(member.property.name)) {
      this.report(m.unknownProgramOutput(member.property.loc, programName!, member.property.name, closest(member.property.name, program.outputs)));
    }
  }

  /** Resolves the placeholders of a string: bound roots interpolate, others stay literal text. */
  text(literal: ast.StringLiteral | ast.Discretion): void {
    this.scopeOf.set(literal, this.scope);
    for (const part of literal.parts) {
      if (part.kind !== "Placeholder") continue;
      const root = rootOf(part.path);
      const symbol = this.resolve(root.name, part.loc.start.offset) ?? this.readBlockBinding(root);
      if (symbol) {
        this.interpolations.set(part, symbol);
        this.references.set(root, symbol);
      } else {
        this.report(m.unboundInterpolation(part.loc, part.text, root.name));
      }
    }
  }

  private discretion(discretion: ast.Discretion): void {
    if (discretion.text.trim() === "") this.report(m.emptyCondition(discretion.loc));
    this.text(discretion);
  }

  checkPrompt(prompt: ast.StringLiteral, where: "session" | "property"): void {
    if (prompt.value === "") this.report(where === "session" ? m.emptySessionPrompt(prompt.loc) : m.emptyPromptProperty(prompt.loc));
    else if (prompt.value.trim() === "") this.report(m.whitespacePrompt(prompt.loc));
    else if (prompt.value.length > 10_000) this.report(m.longPrompt(prompt.loc, prompt.value.length));
  }

  positiveCount(expression: ast.Expression, what: string): void {
    if (expression.kind === "Number" && (!Number.isInteger(expression.value) || expression.value < 1)) {
      this.report(m.notPositiveInteger(expression.loc, what));
    }
  }

  // -------------------------------------------------------------------------------------------
  // Scopes and declarations
  // -------------------------------------------------------------------------------------------

  private withScope(kind: Scope["kind"], node: ast.Node, work: () => void): void {
    const outer = this.scope;
    this.scope = new LexicalScope(kind, node, outer);
    this.scopes.set(node, this.scope);
    try {
      work();
    } finally {
      this.scope = outer;
    }
  }

  private declare(kind: MutableSymbol["kind"], name: ast.Identifier): void {
    const existing = this.scope.symbols.get(name.name);
    if (existing) {
      this.report(m.duplicateVariable(name.loc, name.name, existing.declaration.loc.start.line));
      this.references.set(name, existing);
      return;
    }
    const outer = this.shadowed(name);
    if (outer) this.report(m.shadowing(name.loc, name.name, outer.declaration.loc.start.line));
    if (this.agents.has(name.name) && kind !== "param") this.report(m.nameIsAgent(name.loc, name.name));
    this.references.set(name, this.scope.declare(kind, name));
  }

  /**
   * A name bound inside `if` / `choice` branches, loop bodies or a `catch` stays visible after them
   * (OpenProse names are flat): declare it once here, so every branch binds the same variable.
   */
  private hoist(bodies: readonly (readonly ast.Statement[])[]): void {
    const found = new Map<string, ast.Identifier[]>();
    for (const body of bodies) collectBindings(body, found);
    for (const [name, identifiers] of found) {
      if (this.scope.lookup(name, identifiers[0]!.loc.start.offset)) continue;
      const symbol = this.scope.declare("let", identifiers[0]!);
      for (const identifier of identifiers) this.hoisted.set(identifier, symbol);
    }
  }

  private bindHoisted(name: ast.Identifier, symbol: MutableSymbol): void {
    if (symbol.declaration !== name) symbol.reassigned = true;
    this.references.set(name, symbol);
  }

  /** An outer binding this declaration hides; a block body is a fresh start, like a function's. */
  private shadowed(name: ast.Identifier): MutableSymbol | undefined {
    for (let scope = this.scope; scope.kind !== "block" && scope.parent !== null; scope = scope.parent) {
      const symbol = scope.parent.symbols.get(name.name);
      if (symbol && symbol.declaration.loc.start.offset <= name.loc.start.offset) return symbol;
    }
    return undefined;
  }

  private declareQuietly(kind: MutableSymbol["kind"], name: ast.Identifier): MutableSymbol {
    return this.scope.declare(kind, name);
  }

  /** `item` in `map`, `filter` and `pmap` stages: declared by the stage itself. */
  private declareImplicit(kind: MutableSymbol["kind"], name: string, stage: ast.PipeStage): void {
    this.scope.declare(kind, { kind: "Identifier", name, loc: { start: stage.loc.start, end: stage.loc.start } });
  }
}

/** Names that statements bind, looking into nested branches but not into loops, pipelines or blocks. */
function collectBindings(statements: readonly ast.Statement[], found: Map<string, ast.Identifier[]>): void {
  const add = (identifier: ast.Identifier) => found.set(identifier.name, [...(found.get(identifier.name) ?? []), identifier]);
  const fromExpression = (expression: ast.Expression) => {
    switch (expression.kind) {
      case "Parallel":
        return collectBindings(expression.branches, found);
      case "DoBlock":
        return collectBindings(expression.body, found);
      case "Try":
        collectBindings(expression.body, found);
        if (expression.handler) collectBindings(expression.handler.body, found);
        if (expression.finalizer) collectBindings(expression.finalizer, found);
        return;
    }
  };
  for (const statement of statements) {
    switch (statement.kind) {
      case "Binding":
        add(statement.name);
        fromExpression(statement.value);
        break;
      case "Output":
        if (statement.name) add(statement.name);
        break;
      case "ExpressionStatement":
        fromExpression(statement.expression);
        break;
      case "If":
        statement.clauses.forEach((clause) => collectBindings(clause.body, found));
        if (statement.alternate) collectBindings(statement.alternate, found);
        break;
      case "Choice":
        statement.options.forEach((option) => collectBindings(option.body, found));
        break;
    }
  }
}

function rootOf(path: ast.Identifier | ast.MemberExpression | ast.IndexExpression): ast.Identifier {
  let node: ast.Expression = path;
  while (node.kind === "Member" || node.kind === "Index") node = node.object;
  return node as ast.Identifier;
}

function importName(statement: ast.UseStatement): string {
  return statement.alias?.name ?? statement.source.value.replace(/\.prose$/, "").split("/").pop() ?? "";
}

function quoteName(path: string): string {
  return `\`${path}\``;
}
