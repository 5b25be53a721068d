import type { Value } from "../types.js";
import { text } from "../values/expressions.js";
import { fenceFor } from "./program-source.js";

/** `bindings/{name}.md` (state/filesystem.md, "bindings/{name}.md"). */
export function bindingFile(
  name: string,
  kind: string,
  executionId: number | undefined,
  statement: string,
  value: Value,
): string {
  const header = [
    `# ${name}`,
    "",
    `kind: ${kind}`,
    ...(executionId === undefined ? [] : [`execution_id: ${executionId}`]),
  ];
  const source =
    statement === "" ? [] : ["", "source:", "", `${fenceFor(statement)}prose`, statement, fenceFor(statement)];
  return [...header, ...source, "", "---", "", text(value), ""].join("\n");
}
