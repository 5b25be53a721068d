/** Which blocks a run can call: lowering writes only those, and reads inside the others read nothing. */
import type * as ast from "../../ast.js";
import type { Analysis } from "./types.js";

/**
 * The blocks a run can call: those a `do` outside every block names, and those a block it can call
 * names (a block that only itself, or only blocks never called, name is never called).
 */
export function calledBlocks(analysis: Pick<Analysis, "blocks" | "blockReferences">): ReadonlySet<ast.BlockDefinition> {
  const blocks = [...analysis.blocks.values()];
  const within = (identifier: ast.Identifier, block: ast.BlockDefinition): boolean =>
    identifier.loc.start.offset >= block.loc.start.offset && identifier.loc.start.offset < block.loc.end.offset;
  const calls = [...analysis.blockReferences].filter(([identifier, block]) => identifier !== block.name);
  const live = new Set<ast.BlockDefinition>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [identifier, target] of calls) {
      if (live.has(target)) continue;
      const callers = blocks.filter((block) => block !== target && within(identifier, block));
      const inOwnBody = within(identifier, target) && callers.length === 0;
      if (inOwnBody) continue;
      // The innermost block around the call decides; outside every block, the program itself calls.
      if (callers.length === 0 || callers.some((block) => live.has(block))) {
        live.add(target);
        grew = true;
      }
    }
  }
  return live;
}
