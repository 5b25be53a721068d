/**
 * Code that never runs (warning P040): statements after a `throw`, `return`, `break` or `continue`
 * in the same body, or after a construct every path of which leaves (`if` / `else`, `choice`, a
 * `do:` or `try` whose bodies leave). It still compiles; the warning says where it stops.
 */
import type * as ast from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeMessages as m } from "../../diagnostics/messages.js";
import { walk } from "../../walk.js";

/** Reports, for every statement list of the program, the statements after one that always leaves. */
export function reportUnreachable(program: ast.Program, report: (diagnostic: Diagnostic) => void): void {
  walk(program, (node) => {
    for (const body of statementLists(node)) {
      const exit = body.findIndex(leaves);
      // Blocks and agents are definitions: one written below a `throw` is still there to be called.
      const dead = exit < 0 ? [] : body.slice(exit + 1).filter((statement) => !definitions.has(statement.kind));
      if (dead.length === 0) continue;
      const leaving = body[exit]!;
      const range = { start: dead[0]!.loc.start, end: dead.at(-1)!.loc.end };
      report(m.unreachableCode(range, describe(leaving), leaving.loc.start.line));
    }
    return true;
  });
}

const definitions: ReadonlySet<ast.NodeKind> = new Set(["Block", "Agent", "Use", "Import"]);

/** Whether control never goes on after `statement`. */
export function leaves(statement: ast.Statement): boolean {
  switch (statement.kind) {
    case "Throw":
    case "Return":
    case "Break":
    case "Continue":
      return true;
    case "If":
      return (
        statement.alternate !== null &&
        bodyLeaves(statement.alternate) &&
        statement.clauses.every((clause) => bodyLeaves(clause.body))
      );
    case "Choice":
      return statement.options.length > 0 && statement.options.every((option) => bodyLeaves(option.body));
    case "ExpressionStatement": {
      const expression = statement.expression;
      if (expression.kind === "DoBlock") return bodyLeaves(expression.body);
      if (expression.kind === "Try")
        return (
          (expression.finalizer !== null && bodyLeaves(expression.finalizer)) ||
          (bodyLeaves(expression.body) && expression.handler !== null && bodyLeaves(expression.handler.body))
        );
      return false;
    }
    default:
      return false;
  }
}

function bodyLeaves(body: readonly ast.Statement[]): boolean {
  return body.some(leaves);
}

function describe(statement: ast.Statement): string {
  switch (statement.kind) {
    case "Throw":
      return "the `throw`";
    case "Return":
      return "the `return`";
    case "Break":
      return "the `break`";
    case "Continue":
      return "the `continue`";
    case "If":
      return "every branch of the `if`";
    case "Choice":
      return "every option of the `choice`";
    default:
      return statement.kind === "ExpressionStatement" && statement.expression.kind === "Try"
        ? "the `try`"
        : "the `do:`";
  }
}

/** The statement lists a node holds directly. */
function statementLists(node: ast.Node): (readonly ast.Statement[])[] {
  switch (node.kind) {
    case "Program":
    case "Block":
    case "IfClause":
    case "ChoiceOption":
    case "DoBlock":
    case "Catch":
    case "Repeat":
    case "ForEach":
    case "Loop":
    case "PipeStage":
      return [node.body];
    case "If":
      return node.alternate ? [node.alternate] : [];
    case "Try":
      return [node.body, ...(node.finalizer ? [node.finalizer] : [])];
    default:
      return [];
  }
}
