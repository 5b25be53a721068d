import type * as ast from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeMessages as m } from "../../diagnostics/messages.js";
import { closest } from "./suggest.js";

/** What property checks need from the analyzer. */
export interface PropertyContext {
  readonly skills: ReadonlySet<string>;
  report(diagnostic: Diagnostic): void;
  expression(expression: ast.Expression): void;
  text(literal: ast.StringLiteral | ast.Discretion): void;
  checkPrompt(prompt: ast.StringLiteral, where: "session" | "property"): void;
  positiveCount(expression: ast.Expression, what: string): void;
}

export const knownProperties = ["model", "prompt", "context", "retry", "backoff", "persist", "skills", "permissions"] as const;
const models = ["sonnet", "opus", "haiku"];
const backoffs = ["none", "linear", "exponential"];
const persistValues = ["true", "false", "project", "user"];
export const permissionKinds = ["read", "write", "execute", "bash", "network", "env"];
const permissionModes = ["allow", "deny", "prompt"];

/** The words a property (or a permission) takes, for editors to offer. */
export const propertyWords: Readonly<Record<string, readonly string[]>> = {
  model: models,
  backoff: backoffs,
  persist: persistValues,
  ...Object.fromEntries(permissionKinds.map((kind) => [kind, permissionWords(kind)])),
};

/** The words a permission takes instead of a list of patterns: `env:` is a list of names or `deny`. */
function permissionWords(kind: string): readonly string[] {
  return kind === "env" ? ["deny"] : permissionModes;
}

export function checkAgentProperties(context: PropertyContext, properties: readonly ast.Property[]): void {
  checkProperties(context, properties);
}

export function checkSessionProperties(context: PropertyContext, properties: readonly ast.Property[]): void {
  checkProperties(context, properties);
}

/** `persist:` set to anything but `false`. */
export function isPersistent(agent: ast.AgentDefinition): boolean {
  const persist = agent.properties.find((property) => property.key.name === "persist");
  return persist !== undefined && !(persist.value.kind === "Boolean" && !persist.value.value);
}

function checkProperties(context: PropertyContext, properties: readonly ast.Property[]): void {
  const seen = new Map<string, ast.Property>();
  for (const property of properties) {
    const name = property.key.name;
    const first = seen.get(name);
    if (first) context.report(m.duplicateProperty(property.key.loc, name, first.loc.start.line));
    seen.set(name, property);
    checkProperty(context, property);
  }
}

function checkProperty(context: PropertyContext, property: ast.Property): void {
  const { key, value } = property;
  switch (key.name) {
    case "model":
      if (value.kind === "Identifier") {
        if (!models.includes(value.name)) context.report(m.invalidModel(value.loc, value.name, closest(value.name, models)));
      } else if (value.kind === "String") {
        context.text(value);
      } else {
        context.report(m.invalidModel(value.loc, describe(value), undefined));
      }
      return;
    case "prompt":
      if (value.kind === "String") context.checkPrompt(value, "property");
      return visit(context, value);
    case "context":
      return visit(context, value);
    case "retry":
      context.positiveCount(value as ast.Expression, "`retry:`");
      return visit(context, value);
    case "backoff":
      return checkWord(context, value, "backoff:", backoffs);
    case "persist":
      if (value.kind === "String") return context.text(value);
      if (value.kind === "Boolean") return;
      return checkWord(context, value, "persist:", persistValues.filter((word) => word !== "false"));
    case "skills":
      return checkSkills(context, value);
    case "permissions":
      return checkPermissions(context, value);
    default:
      context.report(m.unknownProperty(key.loc, key.name, closest(key.name, knownProperties)));
      return visit(context, value);
  }
}

function visit(context: PropertyContext, value: ast.Expression | ast.PropertyBlock): void {
  if (value.kind === "PropertyBlock") value.properties.forEach((property) => visit(context, property.value));
  else context.expression(value);
}

/** A keyword-like value written bare (`exponential`) or quoted (`"exponential"`). */
function checkWord(context: PropertyContext, value: ast.Expression | ast.PropertyBlock, property: string, allowed: readonly string[]): void {
  const word = value.kind === "Identifier" ? value.name : value.kind === "String" ? value.value : undefined;
  if (word === undefined || !allowed.includes(word)) context.report(m.unknownValue(value.loc, property, word ?? describe(value), allowed));
}

function checkSkills(context: PropertyContext, value: ast.Expression | ast.PropertyBlock): void {
  if (value.kind !== "Array") {
    context.report(m.skillsNotArray(value.loc));
    return;
  }
  if (value.elements.length === 0) context.report(m.emptySkills(value.loc));
  for (const element of value.elements) {
    if (element.kind !== "String") context.report(m.skillNotString(element.loc));
    else if (!context.skills.has(element.value)) context.report(m.skillNotImported(element.loc, element.value));
  }
}

function checkPermissions(context: PropertyContext, value: ast.Expression | ast.PropertyBlock): void {
  if (value.kind !== "PropertyBlock") {
    context.report(m.permissionsNotBlock(value.loc));
    return;
  }
  const seen = new Map<string, ast.Property>();
  for (const rule of value.properties) {
    const name = rule.key.name;
    const first = seen.get(name);
    if (first) context.report(m.duplicateProperty(rule.key.loc, name, first.loc.start.line));
    seen.set(name, rule);
    if (!permissionKinds.includes(name)) {
      context.report(m.unknownPermission(rule.key.loc, name, closest(name, permissionKinds)));
      continue;
    }
    const ruleValue = rule.value;
    if (ruleValue.kind === "Array" && name !== "bash") {
      for (const pattern of ruleValue.elements) {
        if (pattern.kind === "String" || pattern.kind === "Identifier") context.expression(pattern);
        else context.report(m.permissionPatternNotString(pattern.loc));
      }
      continue;
    }
    const word = ruleValue.kind === "Identifier" ? ruleValue.name : ruleValue.kind === "String" ? ruleValue.value : undefined;
    if (word === undefined || !permissionWords(name).includes(word)) context.report(m.unknownPermissionValue(ruleValue.loc, name, word ?? describe(ruleValue)));
  }
}

function describe(value: ast.Expression | ast.PropertyBlock): string {
  switch (value.kind) {
    case "Number":
      return value.raw;
    case "Boolean":
      return String(value.value);
    case "Identifier":
      return value.name;
    case "String":
      return `"${value.value}"`;
    default:
      return "this";
  }
}
