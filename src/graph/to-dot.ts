/**
 * Graphviz DOT. Every label is a double-quoted string with `\` and `"` escaped: program text can
 * neither end the string nor use DOT's escapes (`\N`, `\G`, `\l`).
 */
import type { FlowEdge, FlowGraph, FlowNode, FlowNodeKind } from "./flow-graph.js";
import { printable } from "../printable.js";
import { labelLines, usedClusters } from "./node-label.js";

const SHAPES: Readonly<Record<FlowNodeKind, string>> = {
  start: "oval",
  end: "oval",
  session: "box",
  judgment: "diamond",
  decision: "diamond",
  choice: "diamond",
  fork: "trapezium",
  join: "invtrapezium",
  loop: "hexagon",
  try: "box",
  catch: "box",
  finally: "box",
  call: "component",
  program: "component",
  input: "parallelogram",
  throw: "cds",
};

export function toDot(graph: FlowGraph): string {
  const out = [
    "digraph program {",
    '  graph [rankdir=TB, fontname="Helvetica", fontsize=10];',
    '  node [fontname="Helvetica", fontsize=10, style=rounded];',
    '  edge [fontname="Helvetica", fontsize=9];',
  ];
  const used = usedClusters(graph);
  const emit = (cluster: string | undefined, indent: string): void => {
    for (const node of graph.nodes) if (node.cluster === cluster) out.push(`${indent}${nodeLine(node)}`);
    for (const child of graph.clusters.filter((candidate) => candidate.parent === cluster && used.has(candidate.id))) {
      out.push(`${indent}subgraph cluster_${child.id} {`, `${indent}  label=${quoteDot(child.label)};`);
      emit(child.id, `${indent}  `);
      out.push(`${indent}}`);
    }
  };
  emit(undefined, "  ");
  for (const edge of graph.edges) out.push(`  ${edgeLine(edge)}`);
  out.push("}");
  return `${out.join("\n")}\n`;
}

function nodeLine(node: FlowNode): string {
  const attributes = [`label=${quoteDot(labelLines(node).join("\n"))}`, `shape=${SHAPES[node.kind]}`];
  if (node.critical) attributes.push('color="#c2410c"', "penwidth=2.5");
  return `${node.id} [${attributes.join(", ")}];`;
}

function edgeLine(edge: FlowEdge): string {
  const attributes: string[] = [];
  if (edge.label !== undefined) attributes.push(`label=${quoteDot(edge.label)}`);
  if (edge.kind !== "flow") attributes.push("style=dashed");
  if (edge.critical) attributes.push('color="#c2410c"', "penwidth=2.5");
  return `${edge.from} -> ${edge.to}${attributes.length === 0 ? "" : ` [${attributes.join(", ")}]`};`;
}

/** A DOT string: backslashes and quotes escaped, line breaks as `\n`. */
export function quoteDot(text: string): string {
  return `"${printable(text).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\r?\n/g, "\\n")}"`;
}
