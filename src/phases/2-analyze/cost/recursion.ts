/** Which blocks recurse, and through which blocks: where a bound unrolls or gives up. */
import { walk } from "../../../walk.js";
import type { Analysis } from "../types.js";

/**
 * Each recursive block's cycle: the blocks on a path from it back to itself, itself among them, in
 * the order they are defined. The cycles are the call graph's strongly connected components
 * (Tarjan's algorithm, with a stack of its own: a chain of blocks may be thousands long), found in
 * one pass; asking each block what it reaches took minutes for a few hundred blocks.
 */
export function recursionCycles(analysis: Pick<Analysis, "blocks">): ReadonlyMap<string, readonly string[]> {
  const names = [...analysis.blocks.keys()];
  const calls = new Map(names.map((name) => [name, calledBy(name, analysis)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const open: string[] = [];
  const isOpen = new Set<string>();
  const cycles = new Map<string, readonly string[]>();
  const visit = (name: string): void => {
    index.set(name, index.size);
    low.set(name, index.get(name)!);
    open.push(name);
    isOpen.add(name);
  };
  for (const root of names) {
    if (index.has(root)) continue;
    visit(root);
    const path = [{ name: root, next: 0 }];
    while (path.length > 0) {
      const top = path.at(-1)!;
      const callees = calls.get(top.name)!;
      if (top.next < callees.length) {
        const callee = callees[top.next++]!;
        if (!index.has(callee)) {
          visit(callee);
          path.push({ name: callee, next: 0 });
        } else if (isOpen.has(callee)) low.set(top.name, Math.min(low.get(top.name)!, index.get(callee)!));
        continue;
      }
      path.pop();
      const caller = path.at(-1);
      if (caller !== undefined) low.set(caller.name, Math.min(low.get(caller.name)!, low.get(top.name)!));
      if (low.get(top.name) !== index.get(top.name)) continue;
      const component = new Set<string>();
      for (let member = open.pop()!; ; member = open.pop()!) {
        isOpen.delete(member);
        component.add(member);
        if (member === top.name) break;
      }
      if (component.size === 1 && !callees.includes(top.name)) continue;
      const cycle = names.filter((name) => component.has(name));
      for (const member of cycle) cycles.set(member, cycle);
    }
  }
  return cycles;
}

/** The blocks `name`'s body calls (blocks defined in it included), each once. */
function calledBy(name: string, analysis: Pick<Analysis, "blocks">): string[] {
  const called = new Set<string>();
  const definition = analysis.blocks.get(name);
  if (definition !== undefined)
    walk(definition, (node) => {
      if (node.kind === "DoCall" && analysis.blocks.has(node.name.name)) called.add(node.name.name);
    });
  return [...called];
}
