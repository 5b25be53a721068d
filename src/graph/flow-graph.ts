/**
 * A program's control flow as `prosec graph` draws it and `prosec view` colours it: nodes for what
 * runs (sessions, judgments, forks and joins, loops, calls...), edges between them, and clusters for
 * blocks, used programs and loop bodies. Plain data, in creation order (which is a topological order
 * of the forward edges), so every format writes it deterministically.
 */

export type FlowNodeKind =
  | "start"
  | "end"
  | "session"
  | "judgment"
  | "decision"
  | "choice"
  | "fork"
  | "join"
  | "loop"
  | "try"
  | "catch"
  | "finally"
  | "call"
  | "program"
  | "input"
  | "throw";

export interface FlowNode {
  /** `n1`, `n2`, ... in creation order. */
  readonly id: string;
  readonly kind: FlowNodeKind;
  /** The label's lines, as written in the program (formats escape them). */
  readonly lines: readonly string[];
  /** The source line the node stands for (0 for start and end). */
  readonly line: number;
  /** Its static cost bound in model calls as `prosec cost` writes counts (`3`, `2·|xs|`), if it calls any. */
  readonly cost?: string;
  /** On a path through the graph that no other path dominates. */
  readonly critical: boolean;
  readonly cluster?: string;
}

export type FlowEdgeKind = "flow" | "repeat" | "call";

export interface FlowEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: FlowEdgeKind;
  readonly label?: string;
  readonly critical: boolean;
}

export type ClusterKind = "block" | "program" | "loop";

export interface FlowCluster {
  /** `c1`, `c2`, ... */
  readonly id: string;
  readonly kind: ClusterKind;
  readonly label: string;
  readonly parent?: string;
}

export interface FlowGraph {
  readonly nodes: readonly FlowNode[];
  readonly edges: readonly FlowEdge[];
  readonly clusters: readonly FlowCluster[];
}
