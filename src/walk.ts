/**
 * The one child walker over the syntax tree (TypeScript's `forEachChild`, graphql-js's visitor keys).
 *
 * `children` is a table with an entry for every node kind: a new kind in `ast.ts` does not compile
 * until it says what its children are, and every traversal built on this file then reaches them.
 */
import type * as ast from "./ast.js";

type Child = ast.Node | null;
type ChildTable = { readonly [K in ast.NodeKind]: (node: ast.NodeOfKind<K>) => readonly Child[] };

const none = (): readonly Child[] => [];

/** Each kind's children, in source order. */
const children: ChildTable = {
  Program: (node) => node.body,
  // names, literals and strings
  Identifier: none,
  TextPart: none,
  Placeholder: (node) => [node.path],
  String: (node) => node.parts,
  Discretion: (node) => node.parts,
  Number: none,
  Boolean: none,
  Null: none,
  Array: (node) => node.elements,
  Object: (node) => node.entries,
  ObjectEntry: (node) => [node.key, node.value],
  // operators and access
  Member: (node) => [node.object, node.property],
  Index: (node) => [node.object, node.index],
  Binary: (node) => [node.left, node.right],
  Unary: (node) => [node.operand],
  // properties and modifiers
  Property: (node) => [node.key, node.value],
  PropertyBlock: (node) => node.properties,
  TypeAnnotation: none,
  Modifier: (node) => [node.key, node.value],
  // session-valued and block-valued expressions
  Session: (node) => [node.name, node.agent, node.prompt, ...node.properties],
  Resume: (node) => [node.agent, ...node.properties],
  DoCall: (node) => [node.name, ...node.args],
  DoBlock: (node) => node.body,
  NamedArgument: (node) => [node.name, node.value],
  ProgramCall: (node) => [node.callee, ...node.args],
  Arrow: (node) => node.steps,
  PipeStage: (node) => [...node.params, ...node.body],
  Pipeline: (node) => [node.source, ...node.stages],
  Parallel: (node) => [...node.modifiers, ...node.branches],
  Repeat: (node) => [node.count, node.index, ...node.body],
  ForEach: (node) => [node.item, node.index, node.collection, ...node.modifiers, ...node.body],
  LoopCondition: (node) => [node.test],
  Loop: (node) => [node.condition, ...node.modifiers, node.index, ...node.body],
  Catch: (node) => [node.param, ...node.body],
  Try: (node) => [...node.body, node.handler, ...(node.finalizer ?? [])],
  // statements
  Use: (node) => [node.source, node.alias],
  Import: (node) => [node.skill, node.source],
  Input: (node) => [node.name, node.prompt, node.default, ...node.modifiers],
  Recovered: () => [],
  Output: (node) => [node.name, node.value],
  Agent: (node) => [node.name, ...node.properties],
  Block: (node) => [node.name, ...node.params, ...node.modifiers, ...node.body],
  Binding: (node) => [node.name, node.value],
  Destructure: (node) => [...node.names, node.value],
  ExpressionStatement: (node) => [node.expression],
  IfClause: (node) => [node.test, ...node.body],
  If: (node) => [...node.clauses, ...(node.alternate ?? [])],
  ChoiceOption: (node) => [node.label, ...node.body],
  Choice: (node) => [node.criteria, ...node.options],
  Throw: (node) => [node.message],
  Assert: (node) => [node.test, node.message],
  Return: () => [],
  Break: () => [],
  Continue: () => [],
};

/** The direct children of a node, in source order. */
export function childrenOf(node: ast.Node): ast.Node[] {
  const list = (children[node.kind] as (node: ast.Node) => readonly Child[])(node);
  return list.filter((child): child is ast.Node => child !== null);
}

/**
 * Visits `root` and everything below it, parents before children, in source order. `enter`
 * returning `false` skips the node's children.
 */
export function walk(root: ast.Node, enter: (node: ast.Node, parent: ast.Node | null) => boolean | void): void {
  const visit = (node: ast.Node, parent: ast.Node | null): void => {
    if (enter(node, parent) === false) return;
    for (const child of childrenOf(node)) visit(child, node);
  };
  visit(root, null);
}
