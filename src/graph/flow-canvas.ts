/**
 * What `build-flow.ts` draws on: nodes, edges and clusters as they are added, each node's weight for
 * the critical paths (its calls one after another, times the iterations of the loops around it),
 * and the way out to a finished `FlowGraph`. It knows nothing of the program's constructs.
 */
import type * as ast from "../ast.js";
import { formatCount, Poly, type CostVector } from "../phases/2-analyze/index.js";
import { markCritical, type Region } from "./critical.js";
import type {
  ClusterKind,
  FlowCluster,
  FlowEdge,
  FlowEdgeKind,
  FlowGraph,
  FlowNode,
  FlowNodeKind,
} from "./flow-graph.js";

/** Where control leaves a piece of the graph, with the label of the edge it will take (`yes`, `done`). */
export interface Exit {
  readonly from: string;
  readonly label?: string;
  /** A loop's way out: the body's last nodes also lead where it leads (a path through the loop goes on). */
  readonly through?: readonly string[];
}

/** A node while the graph is drawn: its first line, kind and count may still change. */
export interface Draft {
  id: string;
  kind: FlowNodeKind;
  lines: string[];
  line: number;
  cost?: string;
  cluster?: string;
}

/** Where the nodes being added sit: their cluster, and how often they run per run of their region. */
export interface Placement {
  readonly cluster: string | undefined;
  readonly multiplier: Poly;
}

export class FlowCanvas {
  private readonly nodes: Draft[] = [];
  private readonly edges: Array<Omit<FlowEdge, "critical">> = [];
  /** Paths that the drawn edges take through a loop, for the critical paths only. */
  private readonly detours: Array<{ from: string; to: string }> = [];
  private readonly clusters: FlowCluster[] = [];
  private readonly weights = new Map<string, Poly>();
  private readonly regions: Region[] = [];
  private placement: Placement = { cluster: undefined, multiplier: Poly.constant(1) };

  /** How often the node being added runs one after another, per run of its region. */
  get multiplier(): Poly {
    return this.placement.multiplier;
  }

  /** Draws with `placement` in force, then restores the one before. */
  within<T>(placement: Placement, draw: () => T): T {
    const outer = this.placement;
    this.placement = placement;
    try {
      return draw();
    } finally {
      this.placement = outer;
    }
  }

  add(kind: FlowNodeKind, lines: string[], node: ast.Node | null, cost?: CostVector): string {
    const id = `n${this.nodes.length + 1}`;
    const calls = cost === undefined ? Poly.zero : callsOf(cost);
    const { cluster } = this.placement;
    this.nodes.push({
      id,
      kind,
      lines,
      line: node === null ? 0 : node.loc.start.line,
      ...(calls.isZero ? {} : { cost: formatCount(calls.toCount()) }),
      ...(cluster === undefined ? {} : { cluster }),
    });
    this.weights.set(id, cost === undefined ? Poly.zero : cost.critical.times(this.multiplier));
    return id;
  }

  /** A node entered from `entry`, left by one way out. */
  step(kind: FlowNodeKind, lines: string[], node: ast.Node, entry: readonly Exit[], cost?: CostVector): Exit[] {
    const id = this.add(kind, lines, node, cost);
    this.connect(entry, id);
    return [{ from: id }];
  }

  /** The node `id` as drawn so far, to add a line or change what it shows. */
  draft(id: string): Draft {
    return this.nodes[Number(id.slice(1)) - 1]!;
  }

  setWeight(id: string, weight: Poly): void {
    this.weights.set(id, weight);
  }

  addCluster(kind: ClusterKind, label: string): string {
    const id = `c${this.clusters.length + 1}`;
    const parent = this.placement.cluster;
    this.clusters.push({ id, kind, label, ...(parent === undefined ? {} : { parent }) });
    return id;
  }

  connect(exits: readonly Exit[], to: string): void {
    for (const exit of exits) {
      this.edge(exit.from, to, "flow", exit.label);
      for (const from of exit.through ?? []) if (from !== exit.from) this.detours.push({ from, to });
    }
  }

  edge(from: string, to: string, kind: FlowEdgeKind, label?: string): void {
    this.edges.push({ from, to, kind, ...(label === undefined ? {} : { label }) });
  }

  /** A region whose critical paths are marked: the program, each block. */
  addRegion(region: Region): void {
    this.regions.push(region);
  }

  finish(): FlowGraph {
    const { nodes, edges } = markCritical(this.nodes, this.edges, this.detours, this.weights, this.regions);
    return { nodes: nodes as FlowNode[], edges, clusters: this.clusters };
  }
}

function callsOf(cost: CostVector): Poly {
  return Object.values(cost.calls).reduce((sum: Poly, count: Poly) => sum.plus(count), Poly.zero);
}
