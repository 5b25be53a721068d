import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule } from "./rule.js";

/** `try:` without `catch:` or `finally:` does nothing (P013). */
export const tryHandler: Rule = {
  Try: (node, context) => {
    if (!node.handler && !node.finalizer && !context.clauseSkipped(node)) context.report(m.tryWithoutHandler(node.loc));
  },
};
