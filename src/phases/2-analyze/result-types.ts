/**
 * What a `returns:` type means to each phase: the JSON Schema the runtime validates the model's
 * answer with (and offers as the `answer` tool's input), and the words messages and hovers show.
 */
import type * as ast from "../../ast.js";

/** A JSON Schema (draft 2020-12's core keywords only), as plain data generated code writes out. */
export type JsonSchema = { readonly [key: string]: JsonSchemaPart };
type JsonSchemaPart = string | boolean | readonly string[] | JsonSchema | readonly JsonSchema[];

/**
 * The type's JSON Schema. Records admit no other keys (`additionalProperties: false`); an optional
 * key may be left out but is not `null` unless its type says so.
 */
export function schemaOf(type: ast.ResultType): JsonSchema {
  switch (type.kind) {
    case "primitive":
      return { type: type.name };
    case "literal":
      return { const: type.value };
    case "list":
      return { type: "array", items: schemaOf(type.element) };
    case "record":
      return {
        type: "object",
        properties: Object.fromEntries(type.fields.map((field) => [field.key, schemaOf(field.type)])),
        required: type.fields.filter((field) => !field.optional).map((field) => field.key),
        additionalProperties: false,
      };
    case "union": {
      const literals = type.members.filter((member) => member.kind === "literal");
      // `"low" | "medium" | "high"` reads best (for the model too) as one enum. A member written twice
      // (`"low" | "low"`, as TypeScript allows) is one: a schema's `enum` may not repeat a value.
      if (literals.length === type.members.length)
        return { enum: [...new Set(literals.map((member) => member.value))] };
      const members = new Map(type.members.map((member) => [JSON.stringify(schemaOf(member)), schemaOf(member)]));
      return { anyOf: [...members.values()] };
    }
  }
}

/** The type as the program wrote it, normalised: `{ title: string, detail?: string }[]`. */
export function typeWords(type: ast.ResultType): string {
  switch (type.kind) {
    case "primitive":
      return type.name;
    case "literal":
      return JSON.stringify(type.value);
    case "list":
      return type.element.kind === "union" ? `(${typeWords(type.element)})[]` : `${typeWords(type.element)}[]`;
    case "record":
      return type.fields.length === 0
        ? "{}"
        : `{ ${type.fields.map((field) => `${fieldKey(field.key)}${field.optional ? "?" : ""}: ${typeWords(field.type)}`).join(", ")} }`;
    case "union":
      return type.members.map(typeWords).join(" | ");
  }
}

function fieldKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

/** The `returns:` type a session's result has: its own, else its agent's; undefined when it is text. */
export function sessionReturns(
  node: ast.SessionExpression | ast.ResumeExpression,
  agents: ReadonlyMap<string, ast.AgentDefinition>,
): ast.ResultType | undefined {
  const own = node.kind === "Session" ? returnsOf(node.properties) : undefined;
  if (own !== undefined) return own ?? undefined;
  const agent = node.agent === null ? undefined : agents.get(node.agent.name);
  return agent === undefined ? undefined : (returnsOf(agent.properties) ?? undefined);
}

/** The `returns:` of these properties: undefined without one, null when its type did not parse. */
export function returnsOf(properties: readonly ast.Property[]): ast.ResultType | null | undefined {
  const property = properties.find((candidate) => candidate.key.name === "returns");
  if (property === undefined || property.value.kind !== "TypeAnnotation") return undefined;
  return property.value.type;
}
