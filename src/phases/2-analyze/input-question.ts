import type { InputDeclaration } from "../../ast.js";

/**
 * What an input asks, on one line as people are shown it (usage errors, hovers, doc comments): its
 * prompt's text, or for an input with a default, that it has one.
 */
export function inputQuestion(input: InputDeclaration): string {
  if (input.prompt === null) return "has a default value";
  const text = input.prompt.kind === "String" ? input.prompt.value : input.prompt.text;
  return input.prompt.kind === "Discretion" && input.prompt.multiline ? text.trim().replace(/\s+/g, " ") : text;
}
