/**
 * What analysis hands to lowering. Lowering never re-resolves a name: it asks these tables.
 */
import type {
  AgentDefinition,
  BlockDefinition,
  Expression,
  Identifier,
  InputDeclaration,
  Node,
  ParallelExpression,
  Placeholder,
  Program,
  ResultType,
  Statement,
  UseStatement,
} from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { ParallelPlan } from "./parallel-plan.js";

export type ScopeKind = "program" | "block" | "loop" | "branch" | "catch" | "pipe";

export interface Scope {
  readonly kind: ScopeKind;
  /** The node that opens the scope (Program, Block, loop, IfClause, ChoiceOption, Catch, PipeStage, ...). */
  readonly node: Node;
  readonly parent: Scope | null;
  /** Names declared directly in this scope, in declaration order. */
  readonly symbols: ReadonlyMap<string, SymbolInfo>;
}

export type SymbolKind =
  | "let"
  | "const"
  /** `x = e` with no earlier declaration: an implicit declaration (parallel branch result, etc.). */
  | "assigned"
  | "input"
  | "output"
  | "param"
  | "loop-item"
  | "loop-index"
  | "pipe-item"
  | "pipe-accumulator"
  | "catch-error"
  | "agent"
  | "block"
  | "program";

export interface SymbolInfo {
  readonly kind: SymbolKind;
  readonly name: string;
  /** The identifier that declares it. */
  readonly declaration: Identifier;
  readonly scope: Scope;
  /** True when some statement assigns to it after its declaration (lowered as `let`, else `const`). */
  readonly reassigned: boolean;
}

export interface Analysis extends NameTargets {
  readonly program: Program;
  readonly diagnostics: readonly Diagnostic[];
  /** The symbol each referencing Identifier resolves to (declarations map to themselves). */
  readonly references: ReadonlyMap<Identifier, SymbolInfo>;
  /** Placeholders that interpolate (root name bound in scope); any placeholder absent here is literal text. */
  readonly interpolations: ReadonlyMap<Placeholder, SymbolInfo>;
  /** The scope each scope-opening node opens. */
  readonly scopes: ReadonlyMap<Node, Scope>;
  /** The innermost scope every statement and expression is evaluated in. */
  readonly scopeOf: ReadonlyMap<Node, Scope>;
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  /** Blocks are hoisted: every block of the program, wherever it is defined. */
  readonly blocks: ReadonlyMap<string, BlockDefinition>;
  /** Top-level inputs before any executable statement: the program's parameters. */
  readonly parameters: readonly InputDeclaration[];
  /** Inputs asked for at run time (after an executable statement, or nested), in source order. */
  readonly runtimeInputs: readonly InputDeclaration[];
  /** Names of top-level `output name = ...` declarations, in first-appearance order. */
  readonly outputs: readonly string[];
  /** `use` statements by alias (or derived name). */
  readonly imports: ReadonlyMap<string, UseStatement>;
  /** The declared outputs of each `use`d program that could be read, by alias. */
  readonly importedOutputs: ReadonlyMap<string, readonly string[]>;
  /** Names used as values that name an agent (`context: captain`): the agent's memory is meant. */
  readonly agentValues: ReadonlyMap<Identifier, AgentDefinition>;
  /** Reads of a name that a block called earlier bound (flat names): the block must hand it back. */
  readonly blockBindingReads: ReadonlyMap<Identifier, BlockDefinition>;
  /** Values whose type a `returns:` gives (typed-values.ts). */
  readonly typed: TypedValues;
  /** How each `parallel` joins and fails, read once from its modifiers (parallel-plan.ts). */
  readonly parallelPlans: ReadonlyMap<ParallelExpression, ParallelPlan>;
  /** The blocks a run can call (called-blocks.ts): lowering writes only those. */
  readonly calledBlocks: ReadonlySet<BlockDefinition>;
  /** The agents a session or `resume:` names, in code a run can reach (read-bindings.ts). */
  readonly usedAgents: ReadonlySet<AgentDefinition>;
  /** The bindings something reads: a name, an interpolation, a judgment, an output (read-bindings.ts). */
  readonly readBindings: ReadonlySet<SymbolInfo>;
}

/** The facts of what a run can reach, found once names and targets are known. */
export type Reachability = "calledBlocks" | "usedAgents" | "readBindings";

/** Which values a `returns:` types (typed-values.ts). */
export interface TypedValues {
  /** The bindings whose value is typed, with their type. */
  readonly symbols: ReadonlyMap<SymbolInfo, ResultType>;
  /** The type of an expression's value, when the program knows it from a `returns:`. */
  of(expression: Expression): ResultType | undefined;
  /** The type of a `map` / `pmap` / `for` item's result (its body's), when it is typed. */
  item(body: readonly Statement[]): ResultType | undefined;
}

/** What the names that are not bindings refer to (for editors: hover, definition, references, rename). */
export interface NameTargets {
  /** Every name that means an agent: its definition, `session: x`, `resume: x`, `context: x`. */
  readonly agentReferences: ReadonlyMap<Identifier, AgentDefinition>;
  /** Every name that means a block: its definition and `do x`. */
  readonly blockReferences: ReadonlyMap<Identifier, BlockDefinition>;
  /** Names that mean a `use`d program or one of its inputs and outputs (`alias`, `alias(input: ...)`, `result.output`). */
  readonly programReferences: ReadonlyMap<Identifier, ProgramReference>;
}

/** A name in one program that refers to another: the program itself, or one of its inputs or outputs by name. */
export interface ProgramReference {
  readonly use: UseStatement;
  readonly part: "program" | "input" | "output";
}
