import type * as ast from "../../../ast.js";

/** A value as the message quotes it. */
export function describe(value: ast.Expression | ast.PropertyBlock): string {
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
