import { exhaustive, failurePolicies, isOneOf, joinStrategies, modifierKeys } from "../../../../runtime/vocabulary.js";
import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import { isModifierOf, modifierHoldsExpression, type ModifierOwner } from "../modifier-keys.js";
import { joinWord, policyWord } from "../parallel-plan.js";
import { checkPositiveCount } from "./counts.js";
import { checkNumberRange } from "./numbers.js";
import type { Rule, RuleContext } from "./rule.js";

/** The parenthesised modifiers of `parallel`, `loop`, `for`, `block` and `input` (P003, P005, P011, P017, P018). */
export const modifiers: Rule = {
  Parallel: (node, context) => {
    checkModifiers(context, "parallel", node.modifiers, node.branches.length);
    checkParallel(context, node);
  },
  Loop: (node, context) => checkModifiers(context, "loop", node.modifiers),
  ForEach: (node, context) => checkModifiers(context, "for", node.modifiers),
  Block: (node, context) => checkModifiers(context, "block", node.modifiers),
  Input: (node, context) => checkModifiers(context, "input", node.modifiers),
};

/** Keys and limits; a `parallel`'s join and failure policy are read as `parallel-plan.ts` reads them. */
function checkModifiers(context: RuleContext, owner: ModifierOwner, list: readonly ast.Modifier[], branches = 0): void {
  for (const modifier of list) {
    const { key, value } = modifier;
    // A value the analyzer visits as an expression (`max:`) has its range checked there.
    if (value.kind === "Number" && (key === null || !modifierHoldsExpression(owner, key.name)))
      checkNumberRange(value, context);
    if (key === null) {
      if (owner !== "parallel")
        context.report(
          m.unknownModifier(value.loc, value.kind === "String" ? value.value : written(value), modifierKeys[owner]),
        );
      continue;
    }
    const name = key.name;
    if (!isModifierOf(owner, name)) {
      context.report(m.unknownModifier(key.loc, name, modifierKeys[owner]));
      continue;
    }
    switch (name) {
      case "on-fail":
        break;
      case "count":
        checkPositiveCount(value, "`count:`", context);
        if (value.kind === "Number" && Number.isFinite(value.value) && branches > 0 && value.value > branches)
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
}

/** A `parallel`'s join strategy and failure policy, read as its plan reads them (P005), and a `count:` without `"any"` (P018). */
function checkParallel(context: RuleContext, node: ast.ParallelExpression): void {
  let join: string | undefined;
  for (const modifier of node.modifiers) {
    if (modifier.key === null) {
      const word = joinWord(modifier);
      if (isOneOf(joinStrategies, word)) join = word;
      else
        context.report(m.unknownValue(modifier.value.loc, "parallel", word ?? written(modifier.value), joinStrategies));
    } else if (modifier.key.name === "on-fail") {
      const word = policyWord(modifier);
      if (!isOneOf(failurePolicies, word))
        context.report(
          m.unknownValue(modifier.value.loc, "on-fail:", word ?? written(modifier.value), failurePolicies),
        );
    }
  }
  const count = node.modifiers.find((modifier) => modifier.key?.name === "count");
  if (count && join !== "any") context.report(m.countWithoutAny(count.loc));
}

/** How a modifier's value is quoted in a message: a name or a number as written, anything else as `this`. */
function written(value: ast.Expression): string {
  if (value.kind === "Identifier") return value.name;
  if (value.kind === "Number") return String(value.value);
  return "this";
}
