/**
 * `return`, `break` and `continue`. Each lowers to the TypeScript statement of the same name where
 * the meanings match: `return` in a block's function, `break`/`continue` in the `for` a loop becomes.
 * Elsewhere the construct that encloses the jump says what it becomes (`state.jumps`): a top-level
 * `return` hands back the outputs set so far, `continue` in a `map` item gives the item `null`
 * first, `continue` in a `parallel for` or `pmap` item returns from the item's function. A
 * `finally:` on the way out runs, as TypeScript's does.
 */
import type * as ast from "../../../ast.js";
import { walk } from "../../../walk.js";
import type { Finish } from "../lowered.js";
import type { Lowering, StatementOutcome } from "../lowering.js";
import type { Jumps, LowerState } from "../state.js";

export function returnStatement(_: ast.ReturnStatement, state: LowerState): StatementOutcome {
  return jumpWith(state.jumps.return, state);
}

export function breakStatement(_: ast.BreakStatement, state: LowerState): StatementOutcome {
  return jumpWith(state.jumps.break, state);
}

export function continueStatement(_: ast.ContinueStatement, state: LowerState): StatementOutcome {
  return jumpWith(state.jumps.continue, state);
}

function jumpWith(statements: readonly string[] | undefined, state: LowerState): StatementOutcome {
  if (statements === undefined || statements.length === 0)
    throw new Error("internal error: a jump analysis rejects reached code generation");
  state.out.add(...statements.slice(0, -1));
  state.out.leave(statements[statements.length - 1]!);
  return {};
}

/** The state of a sequential loop's body, and the label its `for` needs (see `breaksThroughSwitch`). */
export function loopBody(
  node: ast.RepeatExpression | ast.ForEachExpression | ast.LoopExpression,
  state: LowerState,
  finish: Finish,
  lowering: Lowering,
): { readonly state: LowerState; readonly label: string } {
  const label = breaksThroughSwitch(node.body) ? lowering.temporary("loop") : "";
  const jumps: Jumps = {
    ...state.jumps,
    break: [label === "" ? "break;" : `break ${label};`],
    continue: continueAfter(finish),
  };
  return { state: { ...state, jumps }, label };
}

/** The state of one sequential pipeline item: `continue` ends the item, `break` cannot. */
export function itemBody(state: LowerState, finish: Finish): LowerState {
  const { break: _, ...outer } = state.jumps;
  return { ...state, jumps: { ...outer, continue: continueAfter(finish) } };
}

/** The state inside a function the runtime runs beside others: a `parallel` branch, a `parallel for` or `pmap` item. */
export function concurrentBody(state: LowerState, item: boolean): LowerState {
  return { ...state, jumps: item ? { continue: ["return null;"] } : {} };
}

/** A block's function: `return` ends the call, whose result is then `null` (an `output` has returned already). */
export function blockBody(state: LowerState): LowerState {
  return { ...state, jumps: { return: ["return null;"] } };
}

/** `continue` in a body whose results are collected: an item that gives nothing gives `null` (DIALECT.md). */
function continueAfter(finish: Finish): readonly string[] {
  return finish.kind === "push" ? [`${finish.target}.push(null);`, "continue;"] : ["continue;"];
}

/**
 * Whether a `break` of this loop stands inside a `choice` (a TypeScript `switch`, where a bare
 * `break` would leave the switch): the loop then gets a label to break.
 */
function breaksThroughSwitch(body: readonly ast.Statement[]): boolean {
  let found = false;
  const search = (node: ast.Node, inSwitch: boolean): void => {
    walk(node, (child) => {
      if (found) return false;
      if (child !== node && leavesLoop(child)) return false;
      if (child.kind === "Break" && inSwitch) found = true;
      if (child.kind === "Choice" && !inSwitch) {
        for (const option of child.options) search(option, true);
        return false;
      }
      return true;
    });
  };
  for (const statement of body) search(statement, false);
  return found;
}

/** Constructs a `break` inside which belongs to them (or is an error), not to the enclosing loop. */
export function leavesLoop(node: ast.Node): boolean {
  return (
    node.kind === "Repeat" ||
    node.kind === "ForEach" ||
    node.kind === "Loop" ||
    node.kind === "Block" ||
    node.kind === "Parallel" ||
    node.kind === "PipeStage"
  );
}
