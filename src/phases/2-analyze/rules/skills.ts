import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import { misspeltBinding } from "../suggest.js";
import type { RuleContext } from "./rule.js";

/**
 * `skills:` is a non-empty list of quoted names, each imported or installed (E013, E014, W007, W010),
 * and not one edit from an installed skill (P058).
 */
export function checkSkills(value: ast.Expression | ast.PropertyBlock, context: RuleContext): void {
  if (value.kind !== "Array") {
    context.report(m.skillsNotArray(value.loc));
    return;
  }
  if (value.elements.length === 0) context.report(m.emptySkills(value.loc));
  for (const element of value.elements) {
    if (element.kind !== "String") context.report(m.skillNotString(element.loc));
    else if (context.skills.has(element.value) || context.installedSkills?.includes(element.value) === true) continue;
    else {
      // One edit from an installed skill is a typo; a skill not installed at all is what real programs
      // name (their authors had it installed): a warning, and the session runs without it.
      const near = misspeltBinding(element.value, context.installedSkills ?? []);
      context.report(
        near === undefined
          ? m.skillNotImported(element.loc, element.value)
          : m.misspeltSkill(element.loc, element.value, near),
      );
    }
  }
}
