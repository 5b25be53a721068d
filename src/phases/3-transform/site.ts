import type { SourceRange } from "../../ast.js";

/** `{ line, column }` of a node, as every runtime call carries it. */
export function site(node: { readonly loc: SourceRange }): string {
  return `{ line: ${node.loc.start.line}, column: ${node.loc.start.column} }`;
}
