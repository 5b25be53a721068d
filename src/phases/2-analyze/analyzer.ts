import { exhaustive, isOneOf, permissionKinds, propertyNames } from "../../../runtime/vocabulary.js";
import type * as ast from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeMessages as m } from "../../diagnostics/messages.js";
import { Bindings } from "./bindings.js";
import { Definitions } from "./definitions.js";
import { checkJump, type JumpScope } from "./jumps.js";
import { modifierHoldsExpression, type ModifierOwner } from "./modifier-keys.js";
import { parallelPlan, type ParallelPlan } from "./parallel-plan.js";
import { reportUnreachable } from "./unreachable.js";
import { checkNode, type ProgramInterface, type RuleContext } from "./rules/index.js";
import type { DeclaredMcpServers } from "./rules/rule.js";
import { misspeltProperty } from "./rules/properties.js";
import { NamedValues } from "./named-values.js";
import { closest } from "./suggest.js";
import type { Analysis, NameTargets, Reachability } from "./types.js";

/** The inputs and outputs of a program that `use` imports, for checking calls to it. */
export type ImportedProgram = ProgramInterface;

export interface AnalyzeOptions {
  /** Parses and analyses a local `use "./x.prose"` import; undefined when it cannot be read. */
  readonly resolveImport?: (path: string) => ImportedProgram | undefined;
  /** The MCP servers of the `.mcp.json` nearest the program; `permissions: mcp:` is checked against them. */
  readonly mcpServers?: DeclaredMcpServers;
  /** The Agent Skills installed for the project (`skills/`, `.claude/skills/`, `~/.claude/skills/`). */
  readonly installedSkills?: readonly string[];
}

/** Statements that do not execute anything: inputs before the first of the others are parameters. */
const declarative: ReadonlySet<ast.Statement["kind"]> = new Set(["Use", "Import", "Input", "Agent", "Block"]);

type Binders<Kinds extends ast.NodeKind> = { readonly [K in Kinds]: (node: ast.NodeOfKind<K>) => void };

/**
 * One walk over the program in source order: scopes and symbols are built as declarations are
 * met and every reference is resolved where it stands. Each node, once its names are resolved, is
 * handed to the rules (`rules/`), which check everything else.
 */
export class Analyzer implements RuleContext {
  readonly diagnostics: Diagnostic[] = [];
  private readonly definitions: Definitions;
  private readonly bindings: Bindings;
  private readonly named: NamedValues;
  /** `try:` expressions whose `catch` or `finally` clause was skipped for a syntax error. */
  private readonly triesMissingClauses = new Set<ast.TryExpression>();
  /** The constructs around the statement being analysed that `return`, `break` and `continue` may leave. */
  private readonly jumpScopes: JumpScope[] = [];
  private readonly parallelPlans = new Map<ast.ParallelExpression, ParallelPlan>();

  readonly mcpServers: DeclaredMcpServers | undefined;
  readonly installedSkills: readonly string[] | undefined;

  constructor(
    private readonly program: ast.Program,
    options: AnalyzeOptions,
  ) {
    this.mcpServers = options.mcpServers;
    this.installedSkills = options.installedSkills;
    const report = (diagnostic: Diagnostic) => this.report(diagnostic);
    this.definitions = new Definitions(program, options.resolveImport, report);
    this.bindings = new Bindings(program, this.definitions, report);
    this.named = new NamedValues(this.bindings, report);
  }

  run(): Omit<Analysis, keyof NameTargets | "typed" | Reachability> {
    let executed = false;
    this.noteSkippedClauses(this.program.body);
    for (const statement of this.program.body) {
      if (statement.kind === "Input" && !executed) this.named.parameter(statement);
      if (!declarative.has(statement.kind)) executed = true;
      this.statement(statement);
    }
    this.bindings.resolveDeferred();
    reportUnreachable(this.program, (diagnostic) => this.report(diagnostic));
    return {
      program: this.program,
      diagnostics: this.diagnostics,
      references: this.bindings.references,
      interpolations: this.bindings.interpolations,
      scopes: this.bindings.scopes,
      scopeOf: this.bindings.scopeOf,
      agents: this.agents,
      blocks: this.blocks,
      parameters: this.named.parameters,
      runtimeInputs: this.named.runtimeInputs,
      outputs: this.named.outputs,
      imports: new Map([...this.definitions.imports].map(([name, entry]) => [name, entry.statement])),
      importedOutputs: new Map(
        [...this.definitions.imports].flatMap(([name, entry]) =>
          entry.program === undefined ? [] : [[name, entry.program.outputs] as const],
        ),
      ),
      agentValues: this.bindings.agentValues,
      blockBindingReads: this.bindings.blockBindingReads,
      parallelPlans: this.parallelPlans,
    };
  }

  // -------------------------------------------------------------------------------------------
  // What rules may ask
  // -------------------------------------------------------------------------------------------

  get agents(): ReadonlyMap<string, ast.AgentDefinition> {
    return this.definitions.agents;
  }

  get blocks(): ReadonlyMap<string, ast.BlockDefinition> {
    return this.definitions.blocks;
  }

  get skills(): ReadonlySet<string> {
    return this.definitions.skills;
  }

  importedProgram(name: string): ProgramInterface | undefined {
    return this.definitions.imports.get(name)?.program;
  }

  programResultOf(identifier: ast.Identifier): string | undefined {
    return this.named.programResultOf(identifier);
  }

  report(diagnostic: Diagnostic): void {
    this.diagnostics.push(diagnostic);
  }

  // -------------------------------------------------------------------------------------------
  // Statements
  // -------------------------------------------------------------------------------------------

  private body(statements: readonly ast.Statement[]): void {
    this.noteSkippedClauses(statements);
    for (const statement of statements) this.statement(statement);
  }

  clauseSkipped(node: ast.TryExpression): boolean {
    return this.triesMissingClauses.has(node);
  }

  /** A `try:` whose `catch` / `finally` line did not parse (it stands after it, skipped) is not a `try:` without them. */
  private noteSkippedClauses(statements: readonly ast.Statement[]): void {
    statements.forEach((statement, index) => {
      const next = statements[index + 1];
      if (next?.kind !== "Recovered" || !next.continues) return;
      const value =
        statement.kind === "ExpressionStatement"
          ? statement.expression
          : statement.kind === "Binding" || statement.kind === "Output" || statement.kind === "Destructure"
            ? statement.value
            : undefined;
      if (value?.kind === "Try") this.triesMissingClauses.add(value);
    });
  }

  private statement(statement: ast.Statement): void {
    this.bindings.scopeOf.set(statement, this.bindings.scope);
    (this.statements[statement.kind] as (node: ast.Statement) => void)(statement);
    checkNode(statement, this);
  }

  private readonly statements: Binders<ast.Statement["kind"]> = {
    Use: (node) => {
      if (node.alias) this.bindings.declareQuietly("program", node.alias);
    },
    Import: () => {},
    Input: (node) => this.input(node),
    Output: (node) => {
      this.expression(node.value);
      this.named.output(node);
    },
    Agent: (node) => {
      if (this.bindings.scope.lookup(node.name.name, Number.MAX_SAFE_INTEGER))
        this.report(m.nameIsAgent(node.name.loc, node.name.name));
      // Agent prompts may interpolate program-level names (inputs, consts) wherever they are declared.
      this.bindings.withScope("block", node, () => this.properties(node.properties));
    },
    Block: (node) => {
      this.modifiers("block", node.modifiers);
      this.bindings.withScope("block", node, () => {
        for (const param of node.params) this.bindings.declare("param", param);
        this.within({ kind: "block" }, () => this.body(node.body));
      });
    },
    Binding: (node) => {
      this.expression(node.value);
      this.named.binding(node);
    },
    Destructure: (node) => {
      this.expression(node.value);
      for (const name of node.names)
        if (!this.bindings.bindHoisted(name)) this.bindings.declare(node.declaration, name, node);
    },
    ExpressionStatement: (node) => this.expression(node.expression),
    If: (node) => {
      this.bindings.hoist([...node.clauses.map((clause) => clause.body), node.alternate ?? []]);
      for (const clause of node.clauses) {
        this.bindings.condition(clause.test);
        this.expression(clause.test);
        this.bindings.withScope("branch", clause, () => this.body(clause.body));
      }
      const alternate = node.alternate;
      if (alternate) this.bindings.withScope("branch", node, () => this.body(alternate));
    },
    Choice: (node) => {
      this.expression(node.criteria);
      this.bindings.hoist(node.options.map((option) => option.body));
      for (const option of node.options) {
        this.bindings.text(option.label);
        this.bindings.withScope("branch", option, () => this.body(option.body));
      }
    },
    Throw: (node) => {
      if (node.message) this.expression(node.message);
    },
    Assert: (node) => {
      this.expression(node.test);
      if (node.message) this.bindings.text(node.message);
    },
    Return: (node) => this.jump(node),
    Break: (node) => this.jump(node),
    Continue: (node) => this.jump(node),
    // What a statement skipped for a syntax error would have bound counts as bound, here and (in case
    // it was a branch's or a block's, read elsewhere) anywhere: Definitions.isRecovered.
    Recovered: (node) => {
      for (const { namespace, name, nested } of node.names) {
        if (namespace === "value" && !nested) this.bindings.declareRecovered(name, node);
        if (namespace === "called") this.bindings.calledBlock(recoveredCall(name, node));
      }
    },
  };

  private within(scope: JumpScope, analyse: () => void): void {
    this.jumpScopes.push(scope);
    try {
      analyse();
    } finally {
      this.jumpScopes.pop();
    }
  }

  private jump(statement: ast.JumpStatement): void {
    const problem = checkJump(statement, this.jumpScopes);
    if (problem) this.report(problem);
  }

  private input(statement: ast.InputDeclaration): void {
    if (!this.named.input(statement)) return;
    if (statement.prompt) this.expression(statement.prompt);
    if (statement.default) this.expression(statement.default);
    this.modifiers("input", statement.modifiers);
    this.named.declareInput(statement);
  }

  // -------------------------------------------------------------------------------------------
  // Expressions
  // -------------------------------------------------------------------------------------------

  private expression(expression: ast.Expression): void {
    this.bindings.scopeOf.set(expression, this.bindings.scope);
    (this.expressions[expression.kind] as (node: ast.Expression) => void)(expression);
    checkNode(expression, this);
  }

  private readonly expressions: Binders<ast.Expression["kind"]> = {
    Identifier: (node) => this.bindings.reference(node),
    String: (node) => this.bindings.text(node),
    Discretion: (node) => this.bindings.text(node),
    Number: () => {},
    Boolean: () => {},
    Null: () => {},
    Array: (node) => node.elements.forEach((element) => this.expression(element)),
    Object: (node) => {
      for (const entry of node.entries) {
        if (entry.value) this.expression(entry.value);
        else if (entry.key.kind === "Identifier") this.bindings.reference(entry.key);
      }
    },
    Member: (node) => this.expression(node.object),
    Index: (node) => {
      this.expression(node.object);
      this.expression(node.index);
    },
    Binary: (node) => {
      this.expression(node.left);
      this.expression(node.right);
    },
    Unary: (node) => this.expression(node.operand),
    Session: (node) => {
      if (node.agent) this.agentReference(node.agent);
      if (node.prompt) this.bindings.text(node.prompt);
      this.properties(node.properties);
    },
    Resume: (node) => {
      this.agentReference(node.agent);
      this.properties(node.properties);
    },
    DoCall: (node) => {
      node.args.forEach((argument) => this.expression(argument));
      this.bindings.calledBlock(node);
      if (!this.blocks.has(node.name.name) && !this.definitions.isRecovered("block", node.name.name))
        this.report(m.undefinedBlock(node.name.loc, node.name.name, closest(node.name.name, this.blocks.keys())));
    },
    DoBlock: (node) => this.body(node.body),
    ProgramCall: (node) => {
      node.args.forEach((argument) => this.expression(argument.value));
      const imports = this.definitions.imports;
      if (!imports.has(node.callee.name) && !this.definitions.isRecovered("program", node.callee.name))
        this.report(m.unknownProgram(node.callee.loc, node.callee.name, closest(node.callee.name, imports.keys())));
    },
    Arrow: (node) => node.steps.forEach((step) => this.expression(step)),
    Pipeline: (node) => {
      this.expression(node.source);
      for (const stage of node.stages) {
        this.bindings.withScope("pipe", stage, () => {
          if (stage.operator === "reduce")
            stage.params.forEach((param) => this.bindings.declare("pipe-accumulator", param));
          else this.bindings.declareImplicit("pipe-item", "item", stage);
          const item: JumpScope = {
            kind: "item",
            parallel: stage.operator === "pmap",
            what: `a \`${stage.operator}\` item`,
          };
          this.within(item, () => this.body(stage.body));
        });
      }
    },
    Parallel: (node) => {
      this.modifiers("parallel", node.modifiers);
      this.parallelPlans.set(node, parallelPlan(node));
      for (const branch of node.branches) this.within({ kind: "branch" }, () => this.statement(branch));
    },
    Repeat: (node) => {
      this.expression(node.count);
      this.bindings.hoist([node.body], [node.index]);
      this.bindings.withScope("loop", node, () => {
        if (node.index) this.bindings.declare("loop-index", node.index);
        this.within({ kind: "loop" }, () => this.body(node.body));
      });
    },
    ForEach: (node) => {
      this.expression(node.collection);
      this.modifiers("for", node.modifiers);
      if (!node.parallel) this.bindings.hoist([node.body], [node.item, node.index]);
      this.bindings.withScope("loop", node, () => {
        this.bindings.declare("loop-item", node.item);
        if (node.index) this.bindings.declare("loop-index", node.index);
        const scope: JumpScope = node.parallel
          ? { kind: "item", parallel: true, what: "a `parallel for` item" }
          : { kind: "loop" };
        this.within(scope, () => this.body(node.body));
      });
    },
    Loop: (node) => {
      this.modifiers("loop", node.modifiers);
      this.bindings.hoist([node.body], [node.index]);
      this.bindings.withScope("loop", node, () => {
        if (node.index) this.bindings.declare("loop-index", node.index);
        this.within({ kind: "loop" }, () => this.body(node.body));
        // The condition is judged before each iteration, and sees what the body binds (the last iteration's values).
        const test = node.condition?.test;
        if (test) {
          this.bindings.condition(test);
          this.bindings.resolvedAt(Number.MAX_SAFE_INTEGER, () => this.expression(test));
        }
      });
    },
    Try: (node) => {
      this.body(node.body);
      const handler = node.handler;
      if (handler) {
        this.bindings.hoist([handler.body]);
        this.bindings.withScope("catch", handler, () => {
          if (handler.param) this.bindings.declare("catch-error", handler.param);
          this.body(handler.body);
        });
      }
      if (node.finalizer) this.body(node.finalizer);
    },
  };

  /** Property values that are expressions (a `model:` or `backoff:` word is not a name, say). */
  private properties(properties: readonly ast.Property[]): void {
    for (const { key, value } of properties) {
      const name = key.name;
      // A property the language does not define is a note to the model: any expression.
      if (!isOneOf(propertyNames, name)) {
        // A misspelt property (P035) is not read: `bash: deny` under `permisions:` is no expression.
        if (misspeltProperty(name) === undefined && value.kind !== "TypeAnnotation") this.propertyValue(value);
        continue;
      }
      switch (name) {
        case "model":
        case "persist":
          if (value.kind === "String") this.bindings.text(value);
          break;
        case "backoff":
        case "empty":
        case "skills":
        case "returns":
          break;
        case "prompt":
        case "context":
        case "retry":
          if (value.kind !== "TypeAnnotation") this.propertyValue(value);
          break;
        case "permissions":
          if (value.kind !== "PropertyBlock") break;
          for (const rule of value.properties) {
            if (!isOneOf(permissionKinds, rule.key.name) || rule.value.kind !== "Array" || rule.key.name === "bash")
              continue;
            for (const pattern of rule.value.elements)
              if (pattern.kind === "String" || pattern.kind === "Identifier") this.expression(pattern);
          }
          break;
        default:
          exhaustive(name);
      }
    }
  }

  private propertyValue(value: ast.Expression | ast.PropertyBlock | ast.TypeAnnotation): void {
    if (value.kind === "PropertyBlock") value.properties.forEach((property) => this.propertyValue(property.value));
    else if (value.kind !== "TypeAnnotation") this.expression(value);
  }

  /** Limits (`max:`, `max_depth:`) are expressions; the other modifiers are written out. */
  private modifiers(owner: ModifierOwner, modifiers: readonly ast.Modifier[]): void {
    for (const { key, value } of modifiers)
      if (key !== null && modifierHoldsExpression(owner, key.name)) this.expression(value);
  }

  private agentReference(name: ast.Identifier): void {
    if (!this.agents.has(name.name) && !this.definitions.isRecovered("agent", name.name))
      this.report(m.undefinedAgent(name.loc, name.name, closest(name.name, this.agents.keys())));
  }
}

/** The `do name` a skipped statement makes, as a call (its arguments are lost with the statement). */
function recoveredCall(name: string, statement: ast.RecoveredStatement): ast.DoCall {
  return { kind: "DoCall", name: { kind: "Identifier", name, loc: statement.loc }, args: [], loc: statement.loc };
}
