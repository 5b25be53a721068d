import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule } from "./rule.js";

/** `resume:` continues an agent's memory, so the agent must keep one (E017). */
export const resumePersist: Rule = {
  Resume: (node, context) => {
    const agent = context.agents.get(node.agent.name);
    if (agent && !isPersistent(agent)) context.report(m.resumeWithoutPersist(node.agent.loc, node.agent.name));
  },
};

/** `persist:` set to anything but `false`. */
function isPersistent(agent: ast.AgentDefinition): boolean {
  const persist = agent.properties.find((property) => property.key.name === "persist");
  return persist !== undefined && !(persist.value.kind === "Boolean" && !persist.value.value);
}
