import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { Rule, RuleContext } from "./rule.js";

/** A prompt that says nothing, only whitespace, or too much (W001–W004). */
export function checkPrompt(prompt: ast.StringLiteral, where: "session" | "property", context: RuleContext): void {
  if (prompt.value === "")
    context.report(where === "session" ? m.emptySessionPrompt(prompt.loc) : m.emptyPromptProperty(prompt.loc));
  else if (prompt.value.trim() === "") context.report(m.whitespacePrompt(prompt.loc));
  else if (prompt.value.length > 10_000) context.report(m.longPrompt(prompt.loc, prompt.value.length));
}

/** A session has something to do: a prompt, an agent or a `prompt:` property (E003). */
export const sessionPrompt: Rule = {
  Session: (node, context) => {
    if (node.prompt) checkPrompt(node.prompt, "session", context);
    const hasPrompt = node.properties.some((property) => property.key.name === "prompt");
    if (!node.prompt && !node.agent && !hasPrompt) context.report(m.sessionWithoutPrompt(node.loc));
  },
};
