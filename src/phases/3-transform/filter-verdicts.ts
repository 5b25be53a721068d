/**
 * Sessions whose result is a `filter:` stage's verdict (the stage body's last statement): they are
 * offered an `answer(keep)` tool, so one request decides an item, instead of a free-text reply that
 * may need a second request to read as yes or no.
 */
import type * as ast from "../../ast.js";
import type { Analysis } from "../2-analyze/index.js";
import { walk } from "../../walk.js";

export function filterVerdicts(analysis: Analysis): ReadonlySet<ast.SessionExpression> {
  const verdicts = new Set<ast.SessionExpression>();
  walk(analysis.program, (node) => {
    if (node.kind !== "PipeStage" || node.operator !== "filter") return;
    const last = node.body.at(-1);
    if (last?.kind === "ExpressionStatement" && last.expression.kind === "Session") verdicts.add(last.expression);
  });
  return verdicts;
}
