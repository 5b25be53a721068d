import type { FlowNode } from "./flow-graph.js";

/** A node's lines as every format shows them: its own, then its bound in model calls. */
export function labelLines(node: FlowNode): string[] {
  return node.cost === undefined
    ? [...node.lines]
    : [...node.lines, `≤ ${node.cost} ${node.cost === "1" ? "call" : "calls"}`];
}

/** Clusters that hold a node, themselves or through a nested cluster (an empty one is not drawn). */
export function usedClusters(graph: {
  readonly nodes: ReadonlyArray<{ readonly cluster?: string }>;
  readonly clusters: ReadonlyArray<{ readonly id: string; readonly parent?: string }>;
}): Set<string> {
  const parents = new Map(graph.clusters.map((cluster) => [cluster.id, cluster.parent]));
  const used = new Set<string>();
  for (const node of graph.nodes)
    for (let cluster = node.cluster; cluster !== undefined && !used.has(cluster); cluster = parents.get(cluster))
      used.add(cluster);
  return used;
}
