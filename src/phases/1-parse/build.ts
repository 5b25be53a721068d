/**
 * AST constructors for the grammar's postprocessors. Each runs in O(1) and never mutates its
 * arguments: nearley calls postprocessors on branches that later die, so shared data must stay intact.
 */
import type * as ast from "../../ast.js";
import type { Token } from "./token.js";
import { flatten, span, type Cons, type Located } from "./cons.js";

export { cons, flatten, span } from "./cons.js";
export { binary, notPrefix, operation, unary } from "./precedence.js";

export function identifier(token: Token): ast.Identifier {
  return { kind: "Identifier", name: token.text, loc: token.loc };
}

export function string(token: Token): ast.StringLiteral {
  return token.node as ast.StringLiteral;
}

export function discretion(token: Token): ast.Discretion {
  return token.node as ast.Discretion;
}

export function number(token: Token): ast.NumberLiteral {
  return { kind: "Number", value: Number(token.text), raw: token.text, loc: token.loc };
}

export function boolean(token: Token): ast.BooleanLiteral {
  return { kind: "Boolean", value: token.text === "true", loc: token.loc };
}

export function nullLiteral(token: Token): ast.NullLiteral {
  return { kind: "Null", loc: token.loc };
}

/** A literal or a name, from the one token it is. */
export function atom(token: Token): ast.Expression {
  switch (token.type) {
    case "string":
      return string(token);
    case "number":
      return number(token);
    case "discretion":
      return discretion(token);
    default:
      if (token.text === "true" || token.text === "false") return boolean(token);
      return token.text === "null" ? nullLiteral(token) : identifier(token);
  }
}

export function arrow(left: ast.Expression, right: ast.Expression): ast.ArrowExpression {
  const steps = left.kind === "Arrow" ? [...left.steps, right] : [left, right];
  return { kind: "Arrow", steps, loc: span(left, right) };
}

export function member(object: ast.Expression, property: Token): ast.MemberExpression {
  return { kind: "Member", object, property: identifier(property), loc: span(object, property) };
}

export function index(object: ast.Expression, indexExpression: ast.Expression, close: Token): ast.IndexExpression {
  return { kind: "Index", object, index: indexExpression, loc: span(object, close) };
}

export function array(open: Token, elements: Cons<ast.Expression> | null, close: Token): ast.ArrayExpression {
  return { kind: "Array", elements: flatten(elements), loc: span(open, close) };
}

export function object(open: Token, entries: Cons<ast.ObjectEntry> | null, close: Token): ast.ObjectExpression {
  return { kind: "Object", entries: flatten(entries), loc: span(open, close) };
}

/** `prompt: x` as a list's element: the object `{ prompt: x }` (DIALECT.md, `mcp:`'s `prompt:` entries). */
export function keyedElement(key: Token, value: ast.Expression): ast.ObjectExpression {
  const entries = [entry(identifier(key), value)];
  return { kind: "Object", entries, loc: span(key, value) };
}

/** `{ access.token }`: the entry `token: access.token`. */
export function pathEntry(path: ast.Expression, property: Token): ast.ObjectEntry {
  const value = member(path, property);
  return { kind: "ObjectEntry", key: identifier(property), value, loc: value.loc };
}

export function entry(key: ast.Identifier | ast.StringLiteral, value: ast.Expression | null): ast.ObjectEntry {
  return { kind: "ObjectEntry", key, value, loc: value ? span(key, value) : key.loc };
}

export function session(
  keyword: Token,
  name: Token | null,
  agent: Token | null,
  prompt: Token | null,
  last: Located,
  properties: readonly ast.Property[] = [],
): ast.SessionExpression {
  return {
    kind: "Session",
    name: name ? identifier(name) : null,
    agent: agent ? identifier(agent) : null,
    prompt: prompt ? string(prompt) : null,
    properties,
    loc: span(keyword, properties.length > 0 ? properties[properties.length - 1]! : last),
  };
}

/** The same session with the properties of its indented block. */
export function withProperties(
  head: ast.SessionExpression,
  properties: readonly ast.Property[],
): ast.SessionExpression {
  const last = properties[properties.length - 1];
  return { ...head, properties, loc: last ? span(head, last) : head.loc };
}

export function resume(keyword: Token, agent: Token, properties: readonly ast.Property[] = []): ast.ResumeExpression {
  const last = properties[properties.length - 1];
  return { kind: "Resume", agent: identifier(agent), properties, loc: span(keyword, last ?? agent) };
}

export function property(key: Token, value: ast.Expression | ast.PropertyBlock): ast.Property {
  return { kind: "Property", key: identifier(key), value, loc: span(key, value) };
}

/** `returns: T`: the lexer has read the type already (result-type.ts). */
export function typeProperty(key: Token, type: Token): ast.Property {
  const value = type.node as ast.TypeAnnotation;
  return { kind: "Property", key: identifier(key), value, loc: span(key, value) };
}

export function propertyBlock(properties: Cons<ast.Property>): ast.PropertyBlock {
  const items = flatten(properties);
  return { kind: "PropertyBlock", properties: items, loc: span(items[0]!, items[items.length - 1]!) };
}

export function modifier(key: Token | null, value: ast.Expression): ast.Modifier {
  return { kind: "Modifier", key: key ? identifier(key) : null, value, loc: key ? span(key, value) : value.loc };
}

export function doCall(
  keyword: Token,
  name: Token,
  args: Cons<ast.Expression> | null,
  close: Token | null,
): ast.DoCall {
  return { kind: "DoCall", name: identifier(name), args: flatten(args), loc: span(keyword, close ?? name) };
}

export function doBlock(keyword: Token, body: Body): ast.DoBlock {
  return { kind: "DoBlock", body: body.statements, loc: span(keyword, body) };
}

export function programCall(callee: Token, args: Cons<ast.NamedArgument> | null, close: Token): ast.ProgramCall {
  return { kind: "ProgramCall", callee: identifier(callee), args: flatten(args), loc: span(callee, close) };
}

export function namedArgument(name: Token, value: ast.Expression): ast.NamedArgument {
  return { kind: "NamedArgument", name: identifier(name), value, loc: span(name, value) };
}

/** An indented block of statements; `loc` ends at its last statement. */
export interface Body {
  readonly statements: ast.Statement[];
  readonly loc: ast.SourceRange;
}

export function body(statements: Cons<ast.Statement>): Body {
  const items = flatten(statements);
  return { statements: items, loc: span(items[0]!, items[items.length - 1]!) };
}

export function pipeStage(bar: Token, operator: Token, params: Cons<Token> | null, stageBody: Body): ast.PipeStage {
  return {
    kind: "PipeStage",
    operator: operator.text as ast.PipeOperator,
    params: flatten(params).map(identifier),
    body: stageBody.statements,
    loc: span(bar, stageBody),
  };
}

export function pipeline(source: ast.Expression, stages: Cons<ast.PipeStage>): ast.PipelineExpression {
  const items = flatten(stages);
  return { kind: "Pipeline", source, stages: items, loc: span(source, items[items.length - 1]!) };
}

export function parallel(keyword: Token, modifiers: Cons<ast.Modifier> | null, branches: Body): ast.ParallelExpression {
  return {
    kind: "Parallel",
    modifiers: flatten(modifiers),
    branches: branches.statements,
    loc: span(keyword, branches),
  };
}

export function repeat(
  keyword: Token,
  count: ast.Expression,
  indexName: Token | null,
  loopBody: Body,
): ast.RepeatExpression {
  return {
    kind: "Repeat",
    count,
    index: indexName ? identifier(indexName) : null,
    body: loopBody.statements,
    loc: span(keyword, loopBody),
  };
}

export function forEach(
  first: Token,
  isParallel: boolean,
  item: Token,
  indexName: Token | null,
  collection: ast.Expression,
  modifiers: Cons<ast.Modifier> | null,
  loopBody: Body,
): ast.ForEachExpression {
  return {
    kind: "ForEach",
    parallel: isParallel,
    item: identifier(item),
    index: indexName ? identifier(indexName) : null,
    collection,
    modifiers: flatten(modifiers),
    body: loopBody.statements,
    loc: span(first, loopBody),
  };
}

export function loopCondition(mode: Token, test: ast.Expression): ast.LoopCondition {
  return { kind: "LoopCondition", mode: mode.text as "until" | "while", test, loc: span(mode, test) };
}

export function loop(
  keyword: Token,
  condition: ast.LoopCondition | null,
  modifiers: Cons<ast.Modifier> | null,
  indexName: Token | null,
  loopBody: Body,
): ast.LoopExpression {
  return {
    kind: "Loop",
    condition,
    modifiers: flatten(modifiers),
    index: indexName ? identifier(indexName) : null,
    body: loopBody.statements,
    loc: span(keyword, loopBody),
  };
}

export function catchClause(keyword: Token, param: Token | null, handlerBody: Body): ast.CatchClause {
  return {
    kind: "Catch",
    param: param ? identifier(param) : null,
    body: handlerBody.statements,
    loc: span(keyword, handlerBody),
  };
}

export function tryExpression(
  keyword: Token,
  tryBody: Body,
  handler: ast.CatchClause | null,
  finalizer: Body | null,
): ast.TryExpression {
  return {
    kind: "Try",
    body: tryBody.statements,
    handler,
    finalizer: finalizer ? finalizer.statements : null,
    loc: span(keyword, finalizer ?? handler ?? tryBody),
  };
}

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

export function use(keyword: Token, source: Token, alias: Token | null): ast.UseStatement {
  return {
    kind: "Use",
    source: string(source),
    alias: alias ? identifier(alias) : null,
    loc: span(keyword, alias ?? source),
  };
}

export function importStatement(keyword: Token, skill: Token, source: Token): ast.ImportStatement {
  return { kind: "Import", skill: string(skill), source: string(source), loc: span(keyword, source) };
}

/** `input name: "question"` (or a `**discretion**`), or `input name: <expression>`, a default value. */
export function input(
  keyword: Token,
  name: Token,
  value: ast.Expression,
  modifiers: Cons<ast.Modifier> | null,
): ast.InputDeclaration {
  const list = flatten(modifiers);
  const isPrompt = value.kind === "String" || value.kind === "Discretion";
  return {
    kind: "Input",
    name: identifier(name),
    prompt: isPrompt ? value : null,
    default: isPrompt ? null : value,
    modifiers: list,
    loc: list.length > 0 ? span(keyword, list[list.length - 1]!) : span(keyword, value),
  };
}

export function output(keyword: Token, name: Token | null, value: ast.Expression): ast.OutputStatement {
  return { kind: "Output", name: name ? identifier(name) : null, value, loc: span(keyword, value) };
}

export function binding(
  first: Token,
  declaration: Token | null,
  name: Token,
  value: ast.Expression,
): ast.BindingStatement {
  return {
    kind: "Binding",
    declaration: declaration ? (declaration.text as "let" | "const") : null,
    name: identifier(name),
    value,
    loc: span(first, value),
  };
}

export function expressionStatement(expression: ast.Expression): ast.ExpressionStatement {
  return { kind: "ExpressionStatement", expression, loc: expression.loc };
}

export function agent(keyword: Token, name: Token, properties: ast.PropertyBlock): ast.AgentDefinition {
  return { kind: "Agent", name: identifier(name), properties: properties.properties, loc: span(keyword, properties) };
}

export function destructure(declaration: Token, names: Cons<Token>, value: ast.Expression): ast.DestructureStatement {
  return {
    kind: "Destructure",
    declaration: declaration.text as "let" | "const",
    names: flatten(names).map(identifier),
    value,
    loc: span(declaration, value),
  };
}

export function block(
  keyword: Token,
  name: Token,
  params: Cons<Token> | null,
  modifiers: Cons<ast.Modifier> | null,
  blockBody: Body,
): ast.BlockDefinition {
  return {
    kind: "Block",
    name: identifier(name),
    params: flatten(params).map(identifier),
    modifiers: flatten(modifiers),
    body: blockBody.statements,
    loc: span(keyword, blockBody),
  };
}

export function ifClause(keyword: Token, test: ast.Expression, clauseBody: Body): ast.IfClause {
  return { kind: "IfClause", test, body: clauseBody.statements, loc: span(keyword, clauseBody) };
}

export function ifStatement(clauses: Cons<ast.IfClause>, alternate: Body | null): ast.IfStatement {
  const items = flatten(clauses);
  return {
    kind: "If",
    clauses: items,
    alternate: alternate ? alternate.statements : null,
    loc: span(items[0]!, alternate ?? items[items.length - 1]!),
  };
}

export function choiceOption(keyword: Token, label: Token, optionBody: Body): ast.ChoiceOption {
  return { kind: "ChoiceOption", label: string(label), body: optionBody.statements, loc: span(keyword, optionBody) };
}

export function choice(keyword: Token, criteria: Token, options: Cons<ast.ChoiceOption>): ast.ChoiceStatement {
  const items = flatten(options);
  return {
    kind: "Choice",
    criteria: discretion(criteria),
    options: items,
    loc: span(keyword, items[items.length - 1]!),
  };
}

export function throwStatement(keyword: Token, message: ast.Expression | null): ast.ThrowStatement {
  return { kind: "Throw", message, loc: span(keyword, message ?? keyword) };
}

export function jump(kind: ast.JumpStatement["kind"], keyword: Token): ast.JumpStatement {
  return { kind, loc: span(keyword, keyword) };
}

export function assertStatement(keyword: Token, test: ast.Expression, message: Token | null): ast.AssertStatement {
  return { kind: "Assert", test, message: message ? string(message) : null, loc: span(keyword, message ?? test) };
}

export function program(statements: Cons<ast.Statement> | null, loc: ast.SourceRange): ast.Program {
  return { kind: "Program", body: flatten(statements), loc };
}
