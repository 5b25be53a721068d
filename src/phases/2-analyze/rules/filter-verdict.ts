import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import { typeWords } from "../result-types.js";
import type { Rule } from "./rule.js";

/**
 * A `filter:` stage whose last statement is a session reads that session's answer as keep or drop
 * (lowering offers it an `answer(keep, reason)` tool): a `returns:` of its own other than `boolean`
 * would type nothing, so it is P049, not dropped without a word.
 */
export const filterVerdict: Rule = {
  Pipeline: (node, context) => {
    for (const stage of node.stages) {
      const returns = verdictReturns(stage);
      if (returns?.value.kind !== "TypeAnnotation" || returns.value.type === null) continue;
      if (!isBoolean(returns.value.type))
        context.report(m.filterVerdictReturns(returns.key.loc, typeWords(returns.value.type)));
    }
  },
};

/** The `returns:` property of a `filter:` stage's verdict session, when it has one. */
function verdictReturns(stage: ast.PipeStage): ast.Property | undefined {
  if (stage.operator !== "filter") return undefined;
  const last = stage.body.at(-1);
  if (last?.kind !== "ExpressionStatement" || last.expression.kind !== "Session") return undefined;
  return last.expression.properties.find((property) => property.key.name === "returns");
}

function isBoolean(type: ast.ResultType): boolean {
  return type.kind === "primitive" && type.name === "boolean";
}
