/** A `ValueType` as the TypeScript type generated code declares. */
import type { ValueType } from "../2-analyze/index.js";
import { propertyKey, stringLiteral } from "./literals.js";

/** `moduleName` gives the TypeScript name of an imported program's module. */
export function typeText(type: ValueType, moduleName: (program: string) => string): string {
  switch (type.kind) {
    case "value":
      return "Value";
    case "string":
    case "number":
    case "boolean":
    case "null":
      return type.kind;
    case "literal":
      return stringLiteral(type.value);
    case "list":
      return type.element === null ? "readonly Value[]" : `readonly ${elementText(type.element, moduleName)}[]`;
    case "record":
      return `{ ${type.fields.map(([key, field]) => `readonly ${propertyKey(key)}${type.optional?.includes(key) ? "?" : ""}: ${typeText(field, moduleName)};`).join(" ")} }`;
    case "union":
      return type.members.map((each) => typeText(each, moduleName)).join(" | ");
    case "outputs":
      return `${moduleName(type.program)}.Outputs`;
    case "output":
      return `${moduleName(type.program)}.Outputs[${stringLiteral(type.field)}]`;
  }
}

/** A list's element type, parenthesized when it is a union or a (readonly) list. */
export function elementText(type: ValueType, moduleName: (program: string) => string): string {
  const text = typeText(type, moduleName);
  return type.kind === "union" || type.kind === "list" ? `(${text})` : text;
}
