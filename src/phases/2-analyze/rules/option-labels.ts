import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule } from "./rule.js";

/** Each `option` of a `choice` has a label of its own (P016): the model picks by label. */
export const optionLabels: Rule = {
  Choice: (node, context) => {
    const labels = new Set<string>();
    for (const option of node.options) {
      if (labels.has(option.label.value)) context.report(m.duplicateOptionLabel(option.label.loc, option.label.value));
      labels.add(option.label.value);
    }
  },
};
