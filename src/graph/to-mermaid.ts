/**
 * A Mermaid flowchart (GitHub renders it in markdown). Labels are quoted, and every character
 * outside a small safe set is written as Mermaid's `#code;` entity: no text from the program can
 * close a label, start a directive or comment, or become HTML.
 */
import type { FlowEdge, FlowGraph, FlowNode, FlowNodeKind } from "./flow-graph.js";
import { printable } from "../printable.js";
import { labelLines, usedClusters } from "./node-label.js";

const SHAPES: Readonly<Record<FlowNodeKind, readonly [string, string]>> = {
  start: ["([", "])"],
  end: ["([", "])"],
  session: ["[", "]"],
  judgment: ["{", "}"],
  decision: ["{", "}"],
  choice: ["{", "}"],
  fork: ["[/", "\\]"],
  join: ["[\\", "/]"],
  loop: ["{{", "}}"],
  try: ["(", ")"],
  catch: ["(", ")"],
  finally: ["(", ")"],
  call: ["[[", "]]"],
  program: ["[[", "]]"],
  input: ["[/", "/]"],
  throw: [">", "]"],
};

export function toMermaid(graph: FlowGraph): string {
  const out = ["flowchart TD"];
  const used = usedClusters(graph);
  const clusterChildren = (parent: string | undefined) =>
    graph.clusters.filter((cluster) => cluster.parent === parent && used.has(cluster.id));
  const emitNodes = (cluster: string | undefined, indent: string): void => {
    for (const node of graph.nodes) if (node.cluster === cluster) out.push(`${indent}${nodeLine(node)}`);
    for (const child of clusterChildren(cluster)) {
      out.push(`${indent}subgraph ${child.id}["${escapeMermaid(child.label)}"]`);
      emitNodes(child.id, `${indent}  `);
      out.push(`${indent}end`);
    }
  };
  emitNodes(undefined, "  ");
  for (const edge of graph.edges) out.push(`  ${edgeLine(edge)}`);
  for (const kind of Object.keys(SHAPES) as FlowNodeKind[]) {
    const ids = graph.nodes.filter((node) => node.kind === kind).map((node) => node.id);
    // Mermaid reserves some words (`end`): class names carry a suffix.
    if (ids.length > 0) out.push(`  class ${ids.join(",")} ${kind}Step`);
  }
  const critical = graph.nodes.filter((node) => node.critical).map((node) => node.id);
  if (critical.length > 0) out.push(`  class ${critical.join(",")} critical`);
  out.push(
    "  classDef judgmentStep fill:#fef3c7,stroke:#b45309",
    "  classDef decisionStep fill:#f3f4f6,stroke:#6b7280",
    "  classDef choiceStep fill:#fef3c7,stroke:#b45309",
    "  classDef sessionStep fill:#e0f2fe,stroke:#0369a1",
    "  classDef critical stroke:#c2410c,stroke-width:3px",
  );
  return `${out.join("\n")}\n`;
}

function nodeLine(node: FlowNode): string {
  const [open, close] = SHAPES[node.kind];
  return `${node.id}${open}"${labelLines(node).map(escapeMermaid).join("<br>")}"${close}`;
}

function edgeLine(edge: FlowEdge): string {
  const arrow = edge.kind !== "flow" ? "-.->" : edge.critical ? "==>" : "-->";
  const label = edge.label === undefined ? "" : `|"${escapeMermaid(edge.label)}"|`;
  return `${edge.from} ${arrow}${label} ${edge.to}`;
}

/** Letters, digits, spaces and harmless punctuation as they are; any other character as `#code;`. */
export function escapeMermaid(text: string): string {
  return [...printable(text)]
    .map((character) =>
      /^[\p{L}\p{N} .,:_\-+=?!'()/·≤…*“”]$/u.test(character) ? character : `#${character.codePointAt(0)};`,
    )
    .join("");
}
