/**
 * A value of a `returns:` type built from its JSON Schema (the subset prosec writes: `type`, `const`,
 * `enum`, `anyOf`, `items`, `properties`), so a scripted model answers typed sessions validly without
 * hand-written JSON: the first literal of a union, `"value"` for a string, `1`, `true`, two items of
 * a list, and every field of a record.
 */
import type { Value } from "../types.js";

type Schema = { readonly [key: string]: unknown };

export function exampleOf(schema: Schema | undefined, text = "value"): Value {
  if (schema === undefined) return null;
  if ("const" in schema) return schema["const"] as Value;
  const literals = schema["enum"];
  if (Array.isArray(literals) && literals.length > 0) return literals[0] as Value;
  const members = schema["anyOf"];
  if (Array.isArray(members) && members.length > 0) return exampleOf(members[0] as Schema, text);
  switch (schema["type"]) {
    case "string":
      return text;
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "array": {
      const items = schema["items"] as Schema | undefined;
      return [exampleOf(items, `${text} 1`), exampleOf(items, `${text} 2`)];
    }
    case "object": {
      const properties = (schema["properties"] ?? {}) as { readonly [key: string]: Schema };
      return Object.fromEntries(Object.entries(properties).map(([key, field]) => [key, exampleOf(field, key)]));
    }
    default:
      return null;
  }
}

/** The `returns:` schema of a typed session's request: its `answer` tool's `answer` property. */
export function typedAnswerSchema(
  tools: readonly { readonly name: string; readonly input_schema?: unknown }[] | undefined,
): Schema | undefined {
  const tool = tools?.find((each) => each.name === "answer");
  const input = tool?.input_schema as
    { properties?: { [key: string]: Schema }; additionalProperties?: unknown } | undefined;
  // Judgments, extractions and a filter's verdict answer through an `answer` tool too, whose input is open.
  return input?.additionalProperties === false ? input.properties?.["answer"] : undefined;
}
