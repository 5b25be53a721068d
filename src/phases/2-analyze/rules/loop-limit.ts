import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule } from "./rule.js";

/** A `loop` has `(max: N)`, so a model that never says done cannot run it forever (P004). */
export const loopLimit: Rule = {
  Loop: (node, context) => {
    if (!node.modifiers.some((modifier) => modifier.key?.name === "max")) context.report(m.unboundedLoop(node.loc));
  },
};
