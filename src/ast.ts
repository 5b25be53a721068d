/**
 * The OpenProse syntax tree: one discriminated union (`Node`) shared by every phase.
 *
 * Every node carries `loc`, the half-open source range it was parsed from. Lines and columns are
 * 1-based (as editors show them); offsets are 0-based UTF-16 indices into the source text.
 * Nodes are plain data: phases never mutate them, they keep side tables keyed by node identity.
 */

export interface Position {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}

export interface SourceRange {
  readonly start: Position;
  readonly end: Position;
}

interface NodeBase {
  readonly loc: SourceRange;
}

// ---------------------------------------------------------------------------------------------
// Names, literals and strings
// ---------------------------------------------------------------------------------------------

/** A name as written, hyphens included (`security-reviewer`). Used for declarations and references. */
export interface Identifier extends NodeBase {
  readonly kind: "Identifier";
  readonly name: string;
}

/** Literal text of a string, after escape processing. */
export interface TextPart extends NodeBase {
  readonly kind: "TextPart";
  readonly value: string;
}

/**
 * `{name}`, `{a.b}`, `{a[0].b}` inside a string: a candidate interpolation. Whether it is one depends
 * on what is bound in scope, which only analysis knows; unbound placeholders stay literal text (`text`).
 */
export interface Placeholder extends NodeBase {
  readonly kind: "Placeholder";
  /** The reference inside the braces: an Identifier, Member or Index chain. */
  readonly path: Identifier | MemberExpression | IndexExpression;
  /** The placeholder exactly as it reads in the string value, braces included. */
  readonly text: string;
}

export type StringPart = TextPart | Placeholder;

export interface StringLiteral extends NodeBase {
  readonly kind: "String";
  /** The whole value after escape processing, placeholders left as written. */
  readonly value: string;
  /** `"""` strings are raw: no escapes. */
  readonly triple: boolean;
  readonly parts: readonly StringPart[];
}

/** `**text**` or `***text***`: a judgment left to the model. */
export interface Discretion extends NodeBase {
  readonly kind: "Discretion";
  readonly text: string;
  readonly multiline: boolean;
  readonly parts: readonly StringPart[];
}

export interface NumberLiteral extends NodeBase {
  readonly kind: "Number";
  readonly value: number;
  readonly raw: string;
}

export interface BooleanLiteral extends NodeBase {
  readonly kind: "Boolean";
  readonly value: boolean;
}

export interface NullLiteral extends NodeBase {
  readonly kind: "Null";
}

export interface ArrayExpression extends NodeBase {
  readonly kind: "Array";
  readonly elements: readonly Expression[];
}

/** `key: value`, `"quoted key": value`, or the shorthand `key` (value is then `null`). */
export interface ObjectEntry extends NodeBase {
  readonly kind: "ObjectEntry";
  readonly key: Identifier | StringLiteral;
  readonly value: Expression | null;
}

export interface ObjectExpression extends NodeBase {
  readonly kind: "Object";
  readonly entries: readonly ObjectEntry[];
}

// ---------------------------------------------------------------------------------------------
// Operators and access
// ---------------------------------------------------------------------------------------------

export interface MemberExpression extends NodeBase {
  readonly kind: "Member";
  readonly object: Expression;
  readonly property: Identifier;
}

export interface IndexExpression extends NodeBase {
  readonly kind: "Index";
  readonly object: Expression;
  readonly index: Expression;
}

export type BinaryOperator = "+" | "-" | "*" | "/" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "is" | "and" | "or";

export interface BinaryExpression extends NodeBase {
  readonly kind: "Binary";
  readonly operator: BinaryOperator;
  readonly left: Expression;
  readonly right: Expression;
}

export interface UnaryExpression extends NodeBase {
  readonly kind: "Unary";
  readonly operator: "not" | "-";
  readonly operand: Expression;
}

// ---------------------------------------------------------------------------------------------
// Properties (agents, sessions, context blocks)
// ---------------------------------------------------------------------------------------------

/** `key: value` under an agent or session, or inside a property block; `returns: T` holds a type. */
export interface Property extends NodeBase {
  readonly kind: "Property";
  readonly key: Identifier;
  readonly value: Expression | PropertyBlock | TypeAnnotation;
}

// ---------------------------------------------------------------------------------------------
// Result types (`returns:`): a small subset of TypeScript's types (DIALECT.md, "Typed results")
// ---------------------------------------------------------------------------------------------

/** `returns: T` as written; `type` is null when the text is not a type of the subset (already reported). */
export interface TypeAnnotation extends NodeBase {
  readonly kind: "TypeAnnotation";
  readonly type: ResultType | null;
}

/**
 * A type of the `returns:` subset. Its parts are plain data with their ranges, not `Node`s: nothing
 * in them is an expression, a name to resolve or a statement, so no phase walks into them.
 */
export type ResultType =
  | { readonly kind: "primitive"; readonly name: "string" | "number" | "boolean" | "null"; readonly loc: SourceRange }
  | { readonly kind: "literal"; readonly value: string; readonly loc: SourceRange }
  | { readonly kind: "list"; readonly element: ResultType; readonly loc: SourceRange }
  | { readonly kind: "record"; readonly fields: readonly RecordTypeField[]; readonly loc: SourceRange }
  | { readonly kind: "union"; readonly members: readonly ResultType[]; readonly loc: SourceRange };

/** `key: T` or `key?: T` in a record type; the key's range is `loc`'s start. */
export interface RecordTypeField {
  readonly key: string;
  readonly optional: boolean;
  readonly type: ResultType;
  readonly loc: SourceRange;
}

/** An indented block of `key: value` lines: `permissions:`, a block-form `context:`. */
export interface PropertyBlock extends NodeBase {
  readonly kind: "PropertyBlock";
  readonly properties: readonly Property[];
}

/** One entry of a parenthesised modifier list: `("first", on-fail: "continue")`, `(max: 10)`. */
export interface Modifier extends NodeBase {
  readonly kind: "Modifier";
  /** `null` for a positional modifier such as the join strategy `"first"`. */
  readonly key: Identifier | null;
  readonly value: Expression;
}

// ---------------------------------------------------------------------------------------------
// Session-valued and block-valued expressions
// ---------------------------------------------------------------------------------------------

/**
 * `session "prompt"`, `session: agent`, `session name: agent`, `session "Label"` with a `prompt:`
 * property. `prompt` is the string after `session` (a label when a `prompt:` property is present).
 */
export interface SessionExpression extends NodeBase {
  readonly kind: "Session";
  readonly name: Identifier | null;
  readonly agent: Identifier | null;
  readonly prompt: StringLiteral | null;
  readonly properties: readonly Property[];
}

/** `resume: agent` with optional properties. */
export interface ResumeExpression extends NodeBase {
  readonly kind: "Resume";
  readonly agent: Identifier;
  readonly properties: readonly Property[];
}

/** `do name`, `do name()`, `do name(a, b)`. */
export interface DoCall extends NodeBase {
  readonly kind: "DoCall";
  readonly name: Identifier;
  readonly args: readonly Expression[];
}

/** `do:` followed by an indented block. */
export interface DoBlock extends NodeBase {
  readonly kind: "DoBlock";
  readonly body: readonly Statement[];
}

/** `name: value` inside a program call. */
export interface NamedArgument extends NodeBase {
  readonly kind: "NamedArgument";
  readonly name: Identifier;
  readonly value: Expression;
}

/** `research(topic: "x")`: invocation of an imported program. */
export interface ProgramCall extends NodeBase {
  readonly kind: "ProgramCall";
  readonly callee: Identifier;
  readonly args: readonly NamedArgument[];
}

/** `a -> b -> c`: each step receives the previous result as context. */
export interface ArrowExpression extends NodeBase {
  readonly kind: "Arrow";
  readonly steps: readonly Expression[];
}

export type PipeOperator = "map" | "filter" | "pmap" | "reduce";

/** `| map:` ... one stage of a pipeline; `reduce(acc, item)` names its two parameters. */
export interface PipeStage extends NodeBase {
  readonly kind: "PipeStage";
  readonly operator: PipeOperator;
  readonly params: readonly Identifier[];
  readonly body: readonly Statement[];
}

export interface PipelineExpression extends NodeBase {
  readonly kind: "Pipeline";
  readonly source: Expression;
  readonly stages: readonly PipeStage[];
}

/** `parallel (mods):` with one branch per statement. */
export interface ParallelExpression extends NodeBase {
  readonly kind: "Parallel";
  readonly modifiers: readonly Modifier[];
  readonly branches: readonly Statement[];
}

export interface RepeatExpression extends NodeBase {
  readonly kind: "Repeat";
  readonly count: Expression;
  readonly index: Identifier | null;
  readonly body: readonly Statement[];
}

/** `for item in xs:`, `for item, i in xs:`, `parallel for ...`. */
export interface ForEachExpression extends NodeBase {
  readonly kind: "ForEach";
  readonly parallel: boolean;
  readonly item: Identifier;
  readonly index: Identifier | null;
  readonly collection: Expression;
  readonly modifiers: readonly Modifier[];
  readonly body: readonly Statement[];
}

export interface LoopCondition extends NodeBase {
  readonly kind: "LoopCondition";
  readonly mode: "until" | "while";
  readonly test: Expression;
}

/** `loop`, `loop until cond`, `loop while cond`, with `(max: N)` and `as i`. */
export interface LoopExpression extends NodeBase {
  readonly kind: "Loop";
  readonly condition: LoopCondition | null;
  readonly modifiers: readonly Modifier[];
  readonly index: Identifier | null;
  readonly body: readonly Statement[];
}

export interface CatchClause extends NodeBase {
  readonly kind: "Catch";
  readonly param: Identifier | null;
  readonly body: readonly Statement[];
}

export interface TryExpression extends NodeBase {
  readonly kind: "Try";
  readonly body: readonly Statement[];
  readonly handler: CatchClause | null;
  readonly finalizer: readonly Statement[] | null;
}

export type Expression =
  | Identifier
  | StringLiteral
  | Discretion
  | NumberLiteral
  | BooleanLiteral
  | NullLiteral
  | ArrayExpression
  | ObjectExpression
  | MemberExpression
  | IndexExpression
  | BinaryExpression
  | UnaryExpression
  | SessionExpression
  | ResumeExpression
  | DoCall
  | DoBlock
  | ProgramCall
  | ArrowExpression
  | PipelineExpression
  | ParallelExpression
  | RepeatExpression
  | ForEachExpression
  | LoopExpression
  | TryExpression;

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

/** `use "./other.prose" as name` or `use "@handle/slug"`. */
export interface UseStatement extends NodeBase {
  readonly kind: "Use";
  readonly source: StringLiteral;
  readonly alias: Identifier | null;
}

/** Legacy `import "skill" from "source"`: registers a skill name. */
export interface ImportStatement extends NodeBase {
  readonly kind: "Import";
  readonly skill: StringLiteral;
  readonly source: StringLiteral;
}

export interface InputDeclaration extends NodeBase {
  readonly kind: "Input";
  readonly name: Identifier;
  /** `input name: "question"` or `**question**`; null for an input with a default. */
  readonly prompt: StringLiteral | Discretion | null;
  /** `input name: <expression>` (a list, a record, a number...): the value when no answer is given. */
  readonly default: Expression | null;
  /** `(timeout: seconds)`: how long a run waits for the answer. */
  readonly modifiers: readonly Modifier[];
}

/** `output name = expr`, or `output expr` (a block's result). */
export interface OutputStatement extends NodeBase {
  readonly kind: "Output";
  readonly name: Identifier | null;
  readonly value: Expression;
}

export interface AgentDefinition extends NodeBase {
  readonly kind: "Agent";
  readonly name: Identifier;
  readonly properties: readonly Property[];
}

export interface BlockDefinition extends NodeBase {
  readonly kind: "Block";
  readonly name: Identifier;
  readonly params: readonly Identifier[];
  readonly modifiers: readonly Modifier[];
  readonly body: readonly Statement[];
}

/** `let x = e`, `const x = e`, or the assignment `x = e` (`declaration` is then `null`). */
export interface BindingStatement extends NodeBase {
  readonly kind: "Binding";
  readonly declaration: "let" | "const" | null;
  readonly name: Identifier;
  readonly value: Expression;
}

/** `let { a, b } = value`: each name is bound to the field of that name (DIALECT.md, destructuring). */
export interface DestructureStatement extends NodeBase {
  readonly kind: "Destructure";
  readonly declaration: "let" | "const";
  readonly names: readonly Identifier[];
  readonly value: Expression;
}

export interface ExpressionStatement extends NodeBase {
  readonly kind: "ExpressionStatement";
  readonly expression: Expression;
}

export interface IfClause extends NodeBase {
  readonly kind: "IfClause";
  readonly test: Expression;
  readonly body: readonly Statement[];
}

/** `if` with its `elif` clauses in order; `alternate` is the `else` body. */
export interface IfStatement extends NodeBase {
  readonly kind: "If";
  readonly clauses: readonly IfClause[];
  readonly alternate: readonly Statement[] | null;
}

export interface ChoiceOption extends NodeBase {
  readonly kind: "ChoiceOption";
  readonly label: StringLiteral;
  readonly body: readonly Statement[];
}

export interface ChoiceStatement extends NodeBase {
  readonly kind: "Choice";
  readonly criteria: Discretion;
  readonly options: readonly ChoiceOption[];
}

export interface ThrowStatement extends NodeBase {
  readonly kind: "Throw";
  readonly message: Expression | null;
}

/** `assert cond:` with an indented message raised when `cond` is false. */
export interface AssertStatement extends NodeBase {
  readonly kind: "Assert";
  readonly test: Expression;
  readonly message: StringLiteral | null;
}

/**
 * `return`: ends the current block call (its result `null`, as a block's `output` has returned
 * already) or, at top level, the program (its outputs as set so far).
 */
export interface ReturnStatement extends NodeBase {
  readonly kind: "Return";
}

/** `break`: leaves the innermost `loop`, `repeat` or sequential `for`. */
export interface BreakStatement extends NodeBase {
  readonly kind: "Break";
}

/**
 * `continue`: starts the innermost loop's next iteration, or ends the current `parallel for`,
 * `pmap` or pipeline item (a `map` item's result is then `null`, a `filter` item is dropped, a
 * `reduce` step leaves the accumulator unchanged).
 */
export interface ContinueStatement extends NodeBase {
  readonly kind: "Continue";
}

export type JumpStatement = ReturnStatement | BreakStatement | ContinueStatement;

export type Statement =
  | UseStatement
  | ImportStatement
  | InputDeclaration
  | OutputStatement
  | AgentDefinition
  | BlockDefinition
  | BindingStatement
  | DestructureStatement
  | ExpressionStatement
  | IfStatement
  | ChoiceStatement
  | ThrowStatement
  | AssertStatement
  | ReturnStatement
  | BreakStatement
  | ContinueStatement
  | RecoveredStatement;

/**
 * What kind of definition a name in a skipped statement would have made; `called` is a block it
 * calls with `do` (after which the names that block binds are readable).
 */
export type RecoveredNamespace = "value" | "agent" | "block" | "program" | "skill" | "called";

/**
 * A statement with a syntax error, skipped so that the rest of the program is still analysed. It
 * keeps the names the statement would have bound, so that reading them elsewhere is no error.
 */
export interface RecoveredStatement extends NodeBase {
  readonly kind: "Recovered";
  readonly names: ReadonlyArray<{
    readonly namespace: RecoveredNamespace;
    readonly name: string;
    /** Bound inside a block's body or a pipeline stage among the skipped lines: not in the statement's scope. */
    readonly nested: boolean;
  }>;
  /** It begins with a clause of the statement above (`elif`, `else`, `catch`, `finally`). */
  readonly continues: boolean;
}

export interface Program extends NodeBase {
  readonly kind: "Program";
  readonly body: readonly Statement[];
}

/** Parts of a node that are not expressions or statements themselves. */
export type Fragment =
  | TextPart
  | Placeholder
  | ObjectEntry
  | Property
  | PropertyBlock
  | TypeAnnotation
  | Modifier
  | NamedArgument
  | PipeStage
  | LoopCondition
  | CatchClause
  | IfClause
  | ChoiceOption;

export type Node = Program | Statement | Expression | Fragment;

export type NodeKind = Node["kind"];

/** The node type for a given `kind`, for visitors: `NodeOfKind<"Session">`. */
export type NodeOfKind<K extends NodeKind> = Extract<Node, { kind: K }>;
