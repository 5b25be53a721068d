/** Which blocks recurse, and through which blocks: where a bound unrolls or gives up. */
import { walk } from "../../../walk.js";
import type { Analysis } from "../types.js";

/** Blocks that can reach a call of themselves. */
export function recursiveBlocks(analysis: Analysis): ReadonlySet<string> {
  return new Set([...analysis.blocks.keys()].filter((name) => cycleOf(name, analysis).length > 0));
}

/** The blocks on a path from `name` back to itself (empty when it does not recurse). */
export function cycleOf(name: string, analysis: Analysis): string[] {
  const calls = (block: string): string[] => {
    const definition = analysis.blocks.get(block);
    const called: string[] = [];
    if (definition !== undefined)
      walk(definition, (node) => {
        if (node.kind === "DoCall") called.push(node.name.name);
      });
    return called;
  };
  const reach = reachable(calls(name), calls, analysis);
  if (!reach.has(name)) return [];
  return [...reach].filter((block) => block === name || reachable(calls(block), calls, analysis).has(name));
}

/** Every block name reached from `start` through the calls of the blocks it reaches. */
function reachable(start: readonly string[], calls: (block: string) => string[], analysis: Analysis): Set<string> {
  const reach = new Set<string>();
  const stack = [...start];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (reach.has(next)) continue;
    reach.add(next);
    if (analysis.blocks.has(next)) stack.push(...calls(next));
  }
  return reach;
}
