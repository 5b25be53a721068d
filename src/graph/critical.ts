/**
 * The critical paths: from a region's start to its end (the program, each block), the paths no
 * other path dominates. A path's weight is the model calls its nodes make one after another (a
 * polynomial in the run's list sizes and counts); one path dominates another when it costs at least
 * as much for every size and more for some. With `|xs|` against `3`, neither dominates: both are
 * marked. Through a `parallel`, a path takes one branch: the critical path of `prosec cost`.
 *
 * Forward and backward over the forward edges (in creation order, a topological order), each node
 * keeps the undominated weights of the paths that reach it and of those that leave it; a node or an
 * edge is critical when a path through it has one of the region's undominated weights.
 */
import { Poly } from "../phases/2-analyze/index.js";
import type { FlowEdge } from "./flow-graph.js";

export interface Region {
  readonly start: string;
  readonly end: string;
}

/** Frontiers wider than this keep their first weights (by key): enough for any program people write. */
const FRONTIER_LIMIT = 32;

export function markCritical<N extends { readonly id: string }>(
  nodes: readonly N[],
  edges: ReadonlyArray<Omit<FlowEdge, "critical">>,
  detours: ReadonlyArray<{ readonly from: string; readonly to: string }>,
  weights: ReadonlyMap<string, Poly>,
  regions: readonly Region[],
): { nodes: Array<N & { critical: boolean }>; edges: FlowEdge[] } {
  const order = new Map(nodes.map((node, index) => [node.id, index]));
  const forwardEdges = edges.filter((edge) => edge.kind === "flow" && order.get(edge.from)! < order.get(edge.to)!);
  const pathEdges = [...forwardEdges, ...detours.filter((edge) => order.get(edge.from)! < order.get(edge.to)!)];
  const successors = groupBy(
    pathEdges,
    (edge) => edge.from,
    (edge) => edge.to,
  );
  const predecessors = groupBy(
    pathEdges,
    (edge) => edge.to,
    (edge) => edge.from,
  );
  const weight = (id: string): Poly => weights.get(id) ?? Poly.zero;

  const criticalNodes = new Set<string>();
  const criticalEdges = new Set<string>();
  for (const region of regions) {
    const inRegion = reachable(region.start, successors);
    const ids = nodes.map((node) => node.id).filter((id) => inRegion.has(id));
    const reaching = new Map<string, Poly[]>();
    for (const id of ids) {
      const before =
        id === region.start
          ? [Poly.zero]
          : frontier((predecessors.get(id) ?? []).flatMap((p) => reaching.get(p) ?? []));
      reaching.set(
        id,
        before.map((path) => path.plus(weight(id))),
      );
    }
    const leaving = new Map<string, Poly[]>();
    const after = (id: string): Poly[] => {
      if (id === region.end) return [Poly.zero];
      const next = (successors.get(id) ?? []).filter((to) => inRegion.has(to));
      return frontier(next.flatMap((to) => leaving.get(to) ?? []));
    };
    for (const id of [...ids].reverse())
      leaving.set(
        id,
        after(id).map((path) => weight(id).plus(path)),
      );
    const best = new Set(frontier(reaching.get(region.end) ?? []).map((path) => path.key));
    const onBest = (before: readonly Poly[], rest: readonly Poly[]): boolean =>
      before.some((a) => rest.some((b) => best.has(a.plus(b).key)));
    for (const id of ids) if (onBest(reaching.get(id)!, after(id))) criticalNodes.add(id);
    for (const edge of forwardEdges)
      if (inRegion.has(edge.from) && onBest(reaching.get(edge.from)!, leaving.get(edge.to) ?? []))
        criticalEdges.add(`${edge.from}>${edge.to}`);
    // A loop's edge back to its head is on a critical path when the body's last node is.
    for (const edge of edges)
      if (edge.kind === "repeat" && criticalNodes.has(edge.from)) criticalEdges.add(`${edge.from}>${edge.to}`);
  }
  return {
    nodes: nodes.map((node) => ({ ...node, critical: criticalNodes.has(node.id) })),
    edges: edges.map((edge) => ({
      ...edge,
      critical: edge.kind !== "call" && criticalEdges.has(`${edge.from}>${edge.to}`),
    })),
  };
}

/** The weights no other weight dominates, one per value, in a stable order. */
export function frontier(weights: readonly Poly[]): Poly[] {
  const distinct = [...new Map(weights.map((weight) => [weight.key, weight])).values()];
  const undominated = distinct.filter(
    (weight) => !distinct.some((other) => other.key !== weight.key && weight.atMost(other)),
  );
  return undominated.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, FRONTIER_LIMIT);
}

function groupBy<T>(items: readonly T[], key: (item: T) => string, value: (item: T) => string): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const item of items) {
    const list = groups.get(key(item)) ?? [];
    list.push(value(item));
    groups.set(key(item), list);
  }
  return groups;
}

function reachable(start: string, successors: ReadonlyMap<string, readonly string[]>): Set<string> {
  const seen = new Set<string>([start]);
  const stack = [start];
  while (stack.length > 0)
    for (const next of successors.get(stack.pop()!) ?? [])
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
  return seen;
}
