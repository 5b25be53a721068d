import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { RuleContext } from "./rule.js";

/** `skills:` is a non-empty list of quoted names, each imported (E013, E014, W007, W010). */
export function checkSkills(value: ast.Expression | ast.PropertyBlock, context: RuleContext): void {
  if (value.kind !== "Array") {
    context.report(m.skillsNotArray(value.loc));
    return;
  }
  if (value.elements.length === 0) context.report(m.emptySkills(value.loc));
  for (const element of value.elements) {
    if (element.kind !== "String") context.report(m.skillNotString(element.loc));
    else if (!context.skills.has(element.value)) context.report(m.skillNotImported(element.loc, element.value));
  }
}
