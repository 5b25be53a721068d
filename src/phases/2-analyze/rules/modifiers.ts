import { exhaustive, failurePolicies, isOneOf, joinStrategies, modifierKeys } from "../../../../runtime/vocabulary.js";
import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import { isModifierOf, type ModifierOwner } from "../modifier-keys.js";
import { checkPositiveCount } from "./counts.js";
import type { Rule, RuleContext } from "./rule.js";

/** The parenthesised modifiers of `parallel`, `loop`, `for`, `block` and `input` (P003, P005, P011, P017, P018). */
export const modifiers: Rule = {
  Parallel: (node, context) => checkModifiers(context, "parallel", node.modifiers, node.branches.length),
  Loop: (node, context) => checkModifiers(context, "loop", node.modifiers),
  ForEach: (node, context) => checkModifiers(context, "for", node.modifiers),
  Block: (node, context) => checkModifiers(context, "block", node.modifiers),
  Input: (node, context) => checkModifiers(context, "input", node.modifiers),
};

function checkModifiers(context: RuleContext, owner: ModifierOwner, list: readonly ast.Modifier[], branches = 0): void {
  let join: string | undefined;
  for (const modifier of list) {
    const { key, value } = modifier;
    if (key === null) {
      const word = value.kind === "String" ? value.value : undefined;
      if (owner !== "parallel") context.report(m.unknownModifier(value.loc, word ?? "this", modifierKeys[owner]));
      else if (!isOneOf(joinStrategies, word))
        context.report(m.unknownValue(value.loc, "parallel", word ?? "this", joinStrategies));
      else join = word;
      continue;
    }
    const name = key.name;
    if (!isModifierOf(owner, name)) {
      context.report(m.unknownModifier(key.loc, name, modifierKeys[owner]));
      continue;
    }
    switch (name) {
      case "on-fail": {
        const word = value.kind === "String" ? value.value : value.kind === "Identifier" ? value.name : undefined;
        if (!isOneOf(failurePolicies, word))
          context.report(m.unknownValue(value.loc, "on-fail:", word ?? "this", failurePolicies));
        break;
      }
      case "count":
        checkPositiveCount(value, "`count:`", context);
        if (value.kind === "Number" && branches > 0 && value.value > branches)
          context.report(m.highCount(value.loc, value.value, branches));
        break;
      case "max":
      case "max_depth":
      case "timeout":
        checkPositiveCount(value, `\`${name}:\``, context);
        break;
      default:
        exhaustive(name);
    }
  }
  const count = list.find((modifier) => modifier.key?.name === "count");
  if (count && join !== "any") context.report(m.countWithoutAny(count.loc));
}
