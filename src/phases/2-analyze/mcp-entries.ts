import type * as ast from "../../ast.js";

/**
 * The glob of an `mcp:` list's `prompt: "server/tool"` entry (the parser's `{ prompt: ... }`), else
 * undefined: a glob whose every call a person approves (DIALECT.md, "Tools beyond the built-ins").
 */
export function promptedGlob(entry: ast.Expression): ast.Expression | undefined {
  if (entry.kind !== "Object" || entry.entries.length !== 1) return undefined;
  const only = entry.entries[0]!;
  return only.key.kind === "Identifier" && only.key.name === "prompt" && only.value !== null ? only.value : undefined;
}
