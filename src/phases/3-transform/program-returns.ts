import type * as ast from "../../ast.js";
import { walk } from "../../walk.js";

/** Whether a `return` outside every block ends the program early. */
export function returnsFromProgram(program: ast.Program): boolean {
  let found = false;
  walk(program, (node) => {
    if (node.kind === "Return") found = true;
    return !found && node.kind !== "Block";
  });
  return found;
}
