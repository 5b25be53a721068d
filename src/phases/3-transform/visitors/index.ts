/**
 * The visitor tables: one entry per expression and statement kind (a new kind in `ast.ts` does not
 * compile until it is lowered), each implemented in the file of its family.
 */
import type { ExpressionVisitors, StatementVisitors, Visitors } from "../lowering.js";
import { binding, destructure, input, output } from "./bindings.js";
import { blockDefinition, doBlock } from "./blocks.js";
import { condition, judge } from "./conditions.js";
import {
  assertStatement,
  choice,
  declarative,
  expressionStatement,
  ifStatement,
  recovered,
  throwStatement,
} from "./control.js";
import { breakStatement, continueStatement, returnStatement } from "./jumps.js";
import { forEach, loop, repeat } from "./loops.js";
import { parallel, parallelFor } from "./parallel.js";
import { pipeline } from "./pipeline.js";
import { arrow, doCall, programCall, resume, session } from "./sessions.js";
import { statementList } from "./statement-list.js";
import { tryExpression } from "./try.js";
import {
  array,
  binary,
  boolean,
  identifier,
  index,
  member,
  nullLiteral,
  number,
  object,
  stringValue,
  unary,
} from "./values.js";

const expressions: ExpressionVisitors = {
  Identifier: identifier,
  String: stringValue,
  Discretion: judge,
  Number: number,
  Boolean: boolean,
  Null: nullLiteral,
  Array: array,
  Object: object,
  Member: member,
  Index: index,
  Binary: binary,
  Unary: unary,
  Session: session,
  Resume: resume,
  DoCall: doCall,
  DoBlock: doBlock,
  ProgramCall: programCall,
  Arrow: arrow,
  Pipeline: pipeline,
  Parallel: parallel,
  Repeat: repeat,
  ForEach: (node, state, lowering, request) =>
    node.parallel ? parallelFor(node, state, lowering, request) : forEach(node, state, lowering, request),
  Loop: loop,
  Try: tryExpression,
};

const statements: StatementVisitors = {
  Use: declarative,
  Import: declarative,
  Agent: declarative,
  Input: input,
  Output: output,
  Block: blockDefinition,
  Binding: binding,
  Destructure: destructure,
  ExpressionStatement: expressionStatement,
  If: ifStatement,
  Choice: choice,
  Throw: throwStatement,
  Assert: assertStatement,
  Return: returnStatement,
  Break: breakStatement,
  Continue: continueStatement,
  Recovered: recovered,
};

export const visitors: Visitors = { expressions, statements, condition, list: statementList };
