import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule } from "./rule.js";

/** `import "skill" from "source"` still registers the skill, but `use` is the form to write (W006). */
export const legacyImport: Rule = {
  Import: (node, context) => context.report(m.legacyImport(node.loc)),
};
