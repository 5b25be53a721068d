import type * as ast from "../../ast.js";
import { analyzeMessages as m } from "../../diagnostics/messages.js";
import type { PropertyContext } from "./properties.js";

export type ModifierOwner = "parallel" | "loop" | "for" | "block" | "input";

const allowedKeys: Readonly<Record<ModifierOwner, readonly string[]>> = {
  parallel: ["on-fail", "count"],
  loop: ["max"],
  for: ["max"],
  block: ["max_depth"],
  input: ["timeout"],
};

const joinStrategies = ["all", "first", "any"];
const failurePolicies = ["fail-fast", "continue", "ignore"];

/** The parenthesised modifiers of `parallel`, `loop`, `for`, `block` and `input`. */
export function checkModifiers(context: PropertyContext, owner: ModifierOwner, modifiers: readonly ast.Modifier[], branches = 0): void {
  let join: string | undefined;
  for (const modifier of modifiers) {
    const { key, value } = modifier;
    if (key === null) {
      const word = value.kind === "String" ? value.value : undefined;
      if (owner !== "parallel") context.report(m.unknownModifier(value.loc, word ?? "this", allowedKeys[owner]));
      else if (word === undefined || !joinStrategies.includes(word)) context.report(m.unknownValue(value.loc, "parallel", word ?? "this", joinStrategies));
      else join = word;
      continue;
    }
    if (!allowedKeys[owner].includes(key.name)) {
      context.report(m.unknownModifier(key.loc, key.name, allowedKeys[owner]));
      continue;
    }
    switch (key.name) {
      case "on-fail": {
        const word = value.kind === "String" ? value.value : value.kind === "Identifier" ? value.name : undefined;
        if (word === undefined || !failurePolicies.includes(word)) context.report(m.unknownValue(value.loc, "on-fail:", word ?? "this", failurePolicies));
        break;
      }
      case "count":
        context.positiveCount(value, "`count:`");
        if (value.kind === "Number" && branches > 0 && value.value > branches) context.report(m.highCount(value.loc, value.value, branches));
        break;
      default:
        context.positiveCount(value, `\`${key.name}:\``);
        context.expression(value);
    }
  }
  const count = modifiers.find((modifier) => modifier.key?.name === "count");
  if (count && join !== "any") context.report(m.countWithoutAny(count.loc));
}
