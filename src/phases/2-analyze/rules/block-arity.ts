import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule } from "./rule.js";

/** `do name(...)` passes as many arguments as the block has parameters (P006). */
export const blockArity: Rule = {
  DoCall: (node, context) => {
    const block = context.blocks.get(node.name.name);
    if (block && block.params.length !== node.args.length)
      context.report(m.arityMismatch(node.loc, node.name.name, block.params.length, node.args.length));
  },
};
