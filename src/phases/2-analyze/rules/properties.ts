import {
  backoffs,
  emptyAnswers,
  exhaustive,
  isOneOf,
  modelNames,
  permissionKinds,
  permissionWords,
  persistScopes,
  propertyNames,
} from "../../../../runtime/vocabulary.js";
import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import { closest } from "../suggest.js";
import { checkPositiveCount } from "./counts.js";
import { describe } from "./describe.js";
import { checkPermissions } from "./permissions.js";
import { checkPrompt } from "./prompts.js";
import type { Rule, RuleContext } from "./rule.js";
import { checkSkills } from "./skills.js";

const persistValues = ["true", ...persistScopes];

/** The words a property (or a permission) takes, for editors to offer. */
export const propertyWords: Readonly<Record<string, readonly string[]>> = {
  model: modelNames,
  backoff: backoffs,
  empty: emptyAnswers,
  persist: ["true", "false", ...persistScopes],
  ...Object.fromEntries(permissionKinds.map((kind) => [kind, permissionWords(kind)])),
};

/** The properties of agents and sessions: known names, each set once, with values of the right shape. */
export const properties: Rule = {
  Agent: (node, context) => checkProperties(node.properties, context, "Agent"),
  Session: (node, context) => checkProperties(node.properties, context, "Session"),
  Resume: (node, context) => checkProperties(node.properties, context, "Resume"),
};

function checkProperties(
  list: readonly ast.Property[],
  context: RuleContext,
  owner: "Agent" | "Session" | "Resume",
): void {
  const seen = new Map<string, ast.Property>();
  for (const property of list) {
    const name = property.key.name;
    const first = seen.get(name);
    if (first) context.report(m.duplicateProperty(property.key.loc, name, first.key.loc));
    seen.set(name, property);
    if (name === "returns" && owner === "Resume")
      context.report(
        m.misplacedReturns(property.key.loc, "on `resume:` is not supported: its agent's `returns:` types it"),
      );
    checkProperty(property, context);
    // `returns:` anywhere else (under `permissions:`, a block-form `context:`) types nothing.
    if (property.value.kind === "PropertyBlock")
      for (const nested of property.value.properties)
        if (nested.value.kind === "TypeAnnotation")
          context.report(m.misplacedReturns(nested.key.loc, "inside a property block types nothing"));
  }
}

function checkProperty({ key, value }: ast.Property, context: RuleContext): void {
  const name = key.name;
  // The lexer reads a type after `returns:` only, and has reported what is wrong with it.
  if (value.kind === "TypeAnnotation") return;
  if (!isOneOf(propertyNames, name)) {
    const known = misspeltProperty(name);
    return context.report(
      known === undefined ? m.unknownProperty(key.loc, name) : m.misspeltProperty(key.loc, name, known),
    );
  }
  switch (name) {
    case "model":
      if (value.kind === "Identifier" && !isOneOf(modelNames, value.name))
        context.report(m.invalidModel(value.loc, value.name, closest(value.name, modelNames)));
      else if (value.kind !== "Identifier" && value.kind !== "String")
        context.report(m.invalidModel(value.loc, describe(value), undefined));
      return;
    case "prompt":
      if (value.kind === "String") checkPrompt(value, "property", context);
      return;
    case "context":
      return;
    case "retry":
      if (value.kind !== "PropertyBlock") checkPositiveCount(value, "`retry:`", context);
      return;
    case "backoff":
      return checkWord(value, "backoff:", backoffs, context);
    case "empty":
      return checkWord(value, "empty:", emptyAnswers, context);
    case "persist":
      if (value.kind !== "String" && value.kind !== "Boolean") checkWord(value, "persist:", persistValues, context);
      return;
    case "skills":
      return checkSkills(value, context);
    case "permissions":
      return checkPermissions(value, context);
    case "returns":
      return;
    default:
      return exhaustive(name);
  }
}

/**
 * The known property an unknown name is a near miss of (`permisions` → `permissions`): an error, not
 * a note, since the program would run without the setting it meant (permissions must fail closed).
 */
export function misspeltProperty(name: string): string | undefined {
  return isOneOf(propertyNames, name) ? undefined : closest(name, propertyNames);
}

/** A keyword-like value written bare (`exponential`) or quoted (`"exponential"`). */
function checkWord(
  value: ast.Expression | ast.PropertyBlock,
  property: string,
  allowed: readonly string[],
  context: RuleContext,
): void {
  const word = value.kind === "Identifier" ? value.name : value.kind === "String" ? value.value : undefined;
  if (!isOneOf(allowed, word)) context.report(m.unknownValue(value.loc, property, word ?? describe(value), allowed));
}
