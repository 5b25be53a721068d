import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule } from "./rule.js";

/**
 * A number literal a JavaScript number cannot hold (P043): its digits would run as `Infinity`, in
 * the generated module and in every count and bound computed from it.
 */
export const numberRange: Rule = {
  Number: (node, context) => {
    if (!Number.isFinite(node.value)) context.report(m.numberTooLarge(node.loc, node.raw.replace(/\D/g, "").length));
  },
};
