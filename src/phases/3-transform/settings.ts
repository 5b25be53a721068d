/**
 * Agent and session properties → the fields of `SessionSettings` (runtime/types/program.ts). Analysis has
 * already reported every malformed property; what reaches here is lowered so that it type-checks
 * whatever its shape (a non-string where a string belongs goes through `text()`).
 */
import {
  backoffs,
  emptyAnswers,
  exhaustive,
  isOneOf,
  permissionKinds,
  permissionModes,
  persistScopes,
  propertyNames,
} from "../../../runtime/vocabulary.js";
import type * as ast from "../../ast.js";
import { promptedGlob } from "../2-analyze/index.js";
import { numberLiteral, propertyKey, recordField, stringLiteral } from "./literals.js";
import type { RuntimeHelper } from "./lowering.js";

/** What property lowering needs from the expression lowerer. */
export interface ExpressionLowering {
  /** A `Value`-typed TypeScript expression. */
  value(expression: ast.Expression): string;
  /** A `string`-typed TypeScript expression for a string literal (interpolating). */
  string(literal: ast.StringLiteral): string;
  /** A `string`-typed expression for any expression. */
  text(expression: ast.Expression): string;
  /** The name of a runtime helper the code calls (the module imports it). */
  helper(name: RuntimeHelper): string;
}

/** `key: value` fields, in source order, for an object literal of `SessionSettings`. */
export function settingsFields(
  properties: readonly ast.Property[],
  lowering: ExpressionLowering,
  contextExtra?: string,
): string[] {
  const fields: string[] = [];
  const extra: string[] = [];
  let hasContext = false;
  for (const { key, value } of properties) {
    // `returns:` is the session call's own field (its type is the call's), written by the session's lowering.
    if (value.kind === "TypeAnnotation") continue;
    if (value.kind === "PropertyBlock" && key.name !== "permissions" && key.name !== "context") {
      extra.push(`${propertyKey(key.name)}: ${recordOf(value, lowering)}`);
      continue;
    }
    const name = key.name;
    // A property the language does not define reaches the model as a note.
    if (!isOneOf(propertyNames, name)) {
      if (value.kind !== "PropertyBlock") extra.push(recordField(name, lowering.value(value)));
      continue;
    }
    switch (name) {
      case "model":
        fields.push(`model: ${word(value, lowering)}`);
        break;
      case "prompt":
        fields.push(`prompt: ${value.kind === "PropertyBlock" ? recordText(value, lowering) : lowering.text(value)}`);
        break;
      case "context":
        hasContext = true;
        fields.push(`context: ${contextSpec(value, lowering, contextExtra)}`);
        break;
      case "retry":
        if (value.kind !== "PropertyBlock")
          fields.push(
            `retry: ${value.kind === "Number" ? numberLiteral(value.raw) : `Number(${lowering.value(value)})`}`,
          );
        break;
      case "backoff": {
        const chosen = wordOf(value);
        if (isOneOf(backoffs, chosen)) fields.push(`backoff: ${stringLiteral(chosen)}`);
        break;
      }
      case "persist":
        fields.push(`persist: ${persist(value, lowering)}`);
        break;
      case "empty": {
        const chosen = wordOf(value);
        if (isOneOf(emptyAnswers, chosen)) fields.push(`empty: ${stringLiteral(chosen)}`);
        break;
      }
      case "skills":
        fields.push(`skills: ${stringList(value, lowering)}`);
        break;
      case "permissions":
        if (value.kind === "PropertyBlock") fields.push(`permissions: ${permissions(value, lowering)}`);
        break;
      case "returns":
        break;
      default:
        exhaustive(name);
    }
  }
  if (!hasContext && contextExtra !== undefined) fields.push(`context: { ${contextExtra} }`);
  if (extra.length > 0) fields.push(`extra: { ${extra.join(", ")} }`);
  return fields;
}

function word(value: ast.Expression | ast.PropertyBlock, lowering: ExpressionLowering): string {
  if (value.kind === "Identifier") return stringLiteral(value.name);
  if (value.kind === "PropertyBlock") return recordText(value, lowering);
  return lowering.text(value);
}

function wordOf(value: ast.Expression | ast.PropertyBlock): string | undefined {
  if (value.kind === "Identifier") return value.name;
  if (value.kind === "String" && value.parts.every((part) => part.kind === "TextPart")) return value.value;
  return undefined;
}

function persist(value: ast.Expression | ast.PropertyBlock, lowering: ExpressionLowering): string {
  if (value.kind === "Boolean") return String(value.value);
  const chosen = wordOf(value);
  if (chosen === "true") return "true";
  if (chosen === "false") return "false";
  if ((value.kind === "Identifier" || value.kind === "String") && isOneOf(persistScopes, chosen))
    return stringLiteral(chosen);
  if (value.kind === "String") return `{ path: ${lowering.string(value)} }`;
  return "true";
}

function stringList(value: ast.Expression | ast.PropertyBlock, lowering: ExpressionLowering): string {
  if (value.kind === "Array") return `[${value.elements.map((element) => lowering.text(element)).join(", ")}]`;
  if (value.kind === "PropertyBlock") return "[]";
  return `[${lowering.text(value)}]`;
}

/**
 * `permissions:` as `Permissions`. Every kind but env takes `allow`, `deny` or `prompt` (bare or
 * quoted), and read, write, execute and network a list of patterns:
 *
 * - read / write: `allow` leaves the list out, which is the runtime's default (anything inside the
 *   working directory; never `.git/` or `.prose/` for writes), `deny` the empty list (no path, the
 *   tools are not offered), `prompt` the default plus `ask`, so each path also goes to `onPermission`;
 * - execute: `allow` adds no list (bash decides), `deny` the empty list (no command), `prompt`
 *   `ask` (each command goes to `onPermission`);
 * - bash / network: the mode itself;
 * - env: a list of environment variable names the tools get; `deny` (the only word) the empty list;
 * - mcp: its globs as `mcp`, its `prompt:` entries as `mcpPrompt` (a person approves each call);
 *   `prompt` alone is `mcpPrompt: ["*"]`, `deny` no MCP tool (the default).
 *
 * Any other value was reported by analysis (W009, "treated as deny") and lowers as `deny`;
 * unknown kinds (W008) grant nothing and are left out.
 */
function permissions(block: ast.PropertyBlock, lowering: ExpressionLowering): string {
  const rules: string[] = [];
  const ask: string[] = [];
  for (const { key, value } of block.properties) {
    const kind = key.name;
    if (!isOneOf(permissionKinds, kind)) continue;
    if (value.kind === "Array" && kind === "mcp") {
      rules.push(...mcpLists(value, lowering));
      continue;
    }
    if (value.kind === "Array" && kind !== "bash") {
      rules.push(`${kind}: ${stringList(value, lowering)}`);
      continue;
    }
    const written = value.kind === "Identifier" || value.kind === "String" ? wordOf(value) : undefined;
    const mode = isOneOf(permissionModes, written) ? written : "deny";
    switch (kind) {
      case "bash":
      case "network":
        rules.push(`${kind}: ${stringLiteral(mode)}`);
        break;
      case "read":
      case "write":
        if (mode === "deny") rules.push(`${kind}: []`);
        else if (mode === "prompt") ask.push(kind);
        break;
      case "execute":
        if (mode === "deny") rules.push("execute: []");
        else if (mode === "prompt") ask.push(kind);
        break;
      case "env":
        rules.push("env: []");
        break;
      case "mcp":
        if (mode === "prompt") rules.push(`mcpPrompt: [${stringLiteral("*")}]`);
        break;
    }
  }
  if (ask.length > 0) rules.push(`ask: [${ask.map(stringLiteral).join(", ")}]`);
  return rules.length === 0 ? "{}" : `{ ${rules.join(", ")} }`;
}

/** An `mcp:` list as its plain globs (`mcp`) and its `prompt:` ones (`mcpPrompt`), each left out when empty. */
function mcpLists(list: ast.ArrayExpression, lowering: ExpressionLowering): string[] {
  const plain: string[] = [];
  const prompted: string[] = [];
  for (const element of list.elements) {
    const glob = promptedGlob(element);
    if (glob === undefined) plain.push(lowering.text(element));
    else prompted.push(lowering.text(glob));
  }
  return [
    ...(plain.length > 0 || prompted.length === 0 ? [`mcp: [${plain.join(", ")}]`] : []),
    ...(prompted.length > 0 ? [`mcpPrompt: [${prompted.join(", ")}]`] : []),
  ];
}

/**
 * `context:` as a `ContextSpec`: a list of paths when it only holds strings, otherwise a record
 * from the names (or written keys) to their values.
 */
function contextSpec(
  value: ast.Expression | ast.PropertyBlock,
  lowering: ExpressionLowering,
  extra: string | undefined,
): string {
  const withExtra = (entries: string[]) => `{ ${[...entries, ...(extra === undefined ? [] : [extra])].join(", ")} }`;
  if (value.kind === "PropertyBlock") return withExtra(recordEntries(value, lowering));
  if (value.kind === "String")
    return extra === undefined
      ? `[${lowering.string(value)}]`
      : withExtra([`${stringLiteral(value.value)}: ${lowering.string(value)}`]);
  if (value.kind === "Array" && value.elements.every((element) => element.kind === "String") && extra === undefined) {
    return `[${value.elements.map((element) => lowering.text(element)).join(", ")}]`;
  }
  if (value.kind === "Array") {
    const names = distinctKeys(value.elements.map(contextName));
    return withExtra(value.elements.map((element, index) => recordField(names[index]!, lowering.value(element))));
  }
  if (value.kind === "Object") {
    // Keys are distinct: a record that gives one twice is P061.
    return withExtra(
      value.entries.map((entry) =>
        recordField(
          entry.key.kind === "Identifier" ? entry.key.name : entry.key.value,
          entry.value ? lowering.value(entry.value) : lowering.value(entry.key),
        ),
      ),
    );
  }
  return withExtra([recordField(contextName(value), lowering.value(value))]);
}

/** Keys made distinct (`file`, `file (2)`): every context entry is kept, none overwrites another. */
function distinctKeys(keys: readonly string[]): string[] {
  const seen = new Set<string>();
  return keys.map((key) => {
    let unique = key;
    for (let count = 2; seen.has(unique); count++) unique = `${key} (${count})`;
    seen.add(unique);
    return unique;
  });
}

/** The heading a context value is shown under: its name or path as written. */
function contextName(expression: ast.Expression): string {
  switch (expression.kind) {
    case "Identifier":
      return expression.name;
    case "Member":
      return `${contextName(expression.object)}.${expression.property.name}`;
    case "Index":
      return `${contextName(expression.object)}[${expression.index.kind === "Number" ? expression.index.raw : contextName(expression.index)}]`;
    case "String":
      return expression.value;
    default:
      return "context";
  }
}

function propertyValue(
  value: ast.Expression | ast.PropertyBlock | ast.TypeAnnotation,
  lowering: ExpressionLowering,
): string {
  // A type inside a property block is an error (P049): it never reaches a built module.
  if (value.kind === "TypeAnnotation") return "null";
  return value.kind === "PropertyBlock" ? recordOf(value, lowering) : lowering.value(value);
}

function recordOf(block: ast.PropertyBlock, lowering: ExpressionLowering): string {
  return `{ ${recordEntries(block, lowering).join(", ")} }`;
}

function recordEntries(block: ast.PropertyBlock, lowering: ExpressionLowering): string[] {
  const keys = distinctKeys(block.properties.map((property) => property.key.name));
  return block.properties.map((property, index) => recordField(keys[index]!, propertyValue(property.value, lowering)));
}

function recordText(block: ast.PropertyBlock, lowering: ExpressionLowering): string {
  return `${lowering.helper("text")}(${recordOf(block, lowering)})`;
}
