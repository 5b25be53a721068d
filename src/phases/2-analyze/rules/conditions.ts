import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule } from "./rule.js";

/** A `**condition**` says what to judge (P014). */
export const emptyCondition: Rule = {
  Discretion: (node, context) => {
    if (node.text.trim() === "") context.report(m.emptyCondition(node.loc));
  },
};
