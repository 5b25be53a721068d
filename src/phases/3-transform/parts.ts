/**
 * The run body of a large program, in parts. One function holding tens of thousands of statements
 * is more than TypeScript's control flow analysis takes ("too large for control flow analysis",
 * or a stack overflow), and prettier's time and memory grow faster than the text it formats. So a
 * program with many top-level statements declares its bindings ahead, in the run body, and runs its
 * statements in `async function $chunk1()`, `$chunk2()`, ... of bounded size, which read and assign
 * those bindings (closures: the live values, not copies). Blocks stay in the run body, where every
 * part can call them. Small programs keep one straight body.
 */
import type * as ast from "../../ast.js";
import type { SymbolInfo } from "../2-analyze/index.js";
import type { Finish } from "./lowered.js";
import type { Lowering } from "./lowering.js";
import { isTransparent, lastValueIndex } from "./visitors/statement-list.js";
import { programState } from "./state.js";
import { returnsFromProgram } from "./program-returns.js";

export { partThreshold } from "./part-threshold.js";
/** Statements of generated code (before formatting) a part holds at most, unless one statement is larger. */
const partBudget = 400;

/** The run body's statements, each complete: declarations, blocks, the parts, then their calls. */
export function bodyInParts(
  statements: readonly ast.Statement[],
  lowering: Lowering,
  declareAhead: readonly SymbolInfo[],
  /** What a top-level `return` does in the run body. */
  exit: readonly string[],
  /** Given the value of the last top-level statement that has one (a program's final result). */
  finish?: Finish,
): string[][] {
  // An empty list in the program's scope declares every binding of it ahead (`let x: Value = null;`).
  const declarations = lowering.statements([], programState(), { scope: lowering.analysis.program, declareAhead });
  const blocks: string[][] = [];
  const parts: string[][] = [];
  let part: string[] = [];
  const finishing = finish === undefined ? -1 : lastValueIndex(statements);
  // A part a `return` ends says so, and the run body then returns.
  const returns = returnsFromProgram(lowering.analysis.program);
  const state = programState(["return true;"]);
  for (const [index, statement] of statements.entries()) {
    // The last value, and an `if`, `choice` or `try:` after it (transparent bodies), give the final result.
    const givesResult =
      index >= finishing && finish !== undefined && (index === finishing || isTransparent(statement))
        ? { finish, finishLastValue: true }
        : {};
    const lowered = lowering.statements([statement], state, { scope: null, ...givesResult }).statements;
    if (statement.kind === "Block") blocks.push([...lowered]);
    else {
      if (part.length > 0 && part.length + lowered.length > partBudget) {
        parts.push(part);
        part = [];
      }
      part.push(...lowered);
    }
  }
  if (part.length > 0) parts.push(part);
  const names = parts.map((_, index) => `$chunk${index + 1}`);
  return [
    [...declarations.statements],
    ...blocks,
    ...parts.map((lines, index) =>
      returns
        ? [`async function ${names[index]}(): Promise<boolean> {`, ...lines, "return false;", "}"]
        : [`async function ${names[index]}(): Promise<void> {`, ...lines, "}"],
    ),
    names.flatMap((name) => (returns ? [`if (await ${name}()) {`, ...exit, "}"] : [`await ${name}();`])),
  ];
}
