/**
 * What identifies each `assert` of an eval program across edits (DIALECT.md, "Evals"): its message as
 * written, else its structural position: the block it is in (or `program`) and its place among that
 * block's asserts without a message. Never its line, so moving an assert or editing above it keeps
 * its history in a baseline.
 */
import type * as ast from "../../ast.js";
import { childrenOf } from "../../walk.js";

export function assertIds(program: ast.Program): ReadonlyMap<ast.AssertStatement, string> {
  const ids = new Map<ast.AssertStatement, string>();
  const unnamed = new Map<string, number>();
  const visit = (node: ast.Node, scope: string): void => {
    if (node.kind === "Assert") {
      if (node.message !== null) ids.set(node, node.message.value);
      else {
        const place = (unnamed.get(scope) ?? 0) + 1;
        unnamed.set(scope, place);
        ids.set(node, `${scope}: assert #${place}`);
      }
    }
    const inner = node.kind === "Block" ? `block ${node.name.name}` : scope;
    for (const child of childrenOf(node)) visit(child, inner);
  };
  visit(program, "program");
  return ids;
}
