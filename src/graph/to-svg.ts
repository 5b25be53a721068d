/**
 * A standalone SVG, laid out by dagre (`@dagrejs/dagre`: ranks, crossing reduction, compound
 * clusters). Text is XML-escaped; sizes are estimated from character counts (no fonts to measure
 * with), so the picture is the same on every machine, byte for byte.
 */
import dagre from "@dagrejs/dagre";
import type { FlowGraph, FlowNode, FlowNodeKind } from "./flow-graph.js";
import { printable } from "../printable.js";
import { labelLines, usedClusters } from "./node-label.js";

const CHARACTER_WIDTH = 7;
const LINE_HEIGHT = 15;
const PADDING = 12;

export interface SvgOptions {
  /** Extra classes for a node (`prosec view` marks what a run did: `done`, `failed`...). */
  readonly nodeClasses?: (node: FlowNode) => readonly string[];
}

export function toSvg(graph: FlowGraph, options: SvgOptions = {}): string {
  return drawSvg(graph, layoutGraph(graph), options);
}

/** dagre's layout of the graph (the slow part: a viewer computes it once per program). */
export type GraphLayout = InstanceType<typeof dagre.graphlib.Graph>;

export function layoutGraph(graph: FlowGraph): GraphLayout {
  const layout = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  layout.setGraph({ rankdir: "TB", nodesep: 24, ranksep: 36, marginx: 12, marginy: 12 });
  const used = usedClusters(graph);
  for (const cluster of graph.clusters)
    if (used.has(cluster.id)) layout.setNode(cluster.id, { label: cluster.label, paddingTop: LINE_HEIGHT + 4 });
  for (const cluster of graph.clusters)
    if (used.has(cluster.id) && cluster.parent !== undefined) layout.setParent(cluster.id, cluster.parent);
  for (const node of graph.nodes) {
    const lines = labelLines(node);
    const widest = Math.max(...lines.map((line) => [...line].length));
    layout.setNode(node.id, {
      width: widest * CHARACTER_WIDTH + 2 * PADDING + (isDiamond(node.kind) ? 40 : 0),
      height: lines.length * LINE_HEIGHT + PADDING + (isDiamond(node.kind) ? 20 : 0),
    });
    if (node.cluster !== undefined) layout.setParent(node.id, node.cluster);
  }
  graph.edges.forEach((edge, index) =>
    layout.setEdge(
      edge.from,
      edge.to,
      edge.label === undefined
        ? { minlen: 1 }
        : { label: edge.label, width: [...edge.label].length * 6 + 6, height: LINE_HEIGHT, labelpos: "c" },
      `e${index}`,
    ),
  );
  dagre.layout(layout);
  return layout;
}

export function drawSvg(graph: FlowGraph, layout: GraphLayout, options: SvgOptions = {}): string {
  const used = usedClusters(graph);
  const size = layout.graph();
  const width = round(size.width ?? 0);
  const height = round(size.height ?? 0);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="prosec-graph" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    "<style>",
    ".cluster rect{fill:#f8fafc;stroke:#cbd5e1}",
    ".node>:first-child{fill:#fff;stroke:#475569}",
    ".node.session>:first-child{fill:#e0f2fe;stroke:#0369a1}",
    ".node.judgment>:first-child,.node.choice>:first-child{fill:#fef3c7;stroke:#b45309}",
    ".node.critical>:first-child{stroke:#c2410c;stroke-width:3}",
    ".edge path{fill:none;stroke:#64748b}",
    ".edge.critical path{stroke:#c2410c;stroke-width:2.5}",
    ".edge.call path,.edge.repeat path{stroke-dasharray:4 3}",
    "</style>",
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#64748b"/></marker></defs>',
  ];
  for (const cluster of graph.clusters) {
    if (!used.has(cluster.id)) continue;
    const box = layout.node(cluster.id);
    const x = box.x - box.width / 2;
    const y = box.y - box.height / 2;
    out.push(
      `<g class="cluster ${cluster.kind}" data-id="${cluster.id}"><rect x="${round(x)}" y="${round(y)}" width="${round(box.width)}" height="${round(box.height)}" rx="6"/><text x="${round(x + 8)}" y="${round(y + LINE_HEIGHT)}" fill="#475569">${escapeXml(cluster.label)}</text></g>`,
    );
  }
  graph.edges.forEach((edge, index) => {
    const laid = layout.edge(edge.from, edge.to, `e${index}`);
    const points = (laid.points ?? []).map((point: { x: number; y: number }) => `${round(point.x)},${round(point.y)}`);
    const classes = ["edge", edge.kind, ...(edge.critical ? ["critical"] : [])].join(" ");
    const label =
      edge.label === undefined || laid.x === undefined || laid.y === undefined
        ? ""
        : `<text x="${round(laid.x)}" y="${round(laid.y + 4)}" text-anchor="middle" font-size="10" fill="#334155">${escapeXml(edge.label)}</text>`;
    out.push(
      `<g class="${classes}" data-from="${edge.from}" data-to="${edge.to}"><path d="M${points.join("L")}" marker-end="url(#arrow)"/>${label}</g>`,
    );
  });
  for (const node of graph.nodes) {
    const box = layout.node(node.id);
    const classes = ["node", node.kind, ...(node.critical ? ["critical"] : []), ...(options.nodeClasses?.(node) ?? [])];
    const lines = labelLines(node);
    const top = box.y - ((lines.length - 1) * LINE_HEIGHT) / 2 + 4;
    const text = lines
      .map(
        (line, index) =>
          `<tspan x="${round(box.x)}" y="${round(top + index * LINE_HEIGHT)}">${escapeXml(line)}</tspan>`,
      )
      .join("");
    out.push(
      `<g class="${classes.join(" ")}" data-id="${node.id}" data-line="${node.line}">${shape(node.kind, box)}<text text-anchor="middle">${text}</text></g>`,
    );
  }
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

function shape(kind: FlowNodeKind, box: { x: number; y: number; width: number; height: number }): string {
  const left = box.x - box.width / 2;
  const top = box.y - box.height / 2;
  if (isDiamond(kind)) {
    const points = [
      [box.x, top],
      [left + box.width, box.y],
      [box.x, top + box.height],
      [left, box.y],
    ];
    return `<polygon points="${points.map(([x, y]) => `${round(x!)},${round(y!)}`).join(" ")}"/>`;
  }
  const radius = kind === "start" || kind === "end" ? box.height / 2 : kind === "session" ? 3 : 8;
  return `<rect x="${round(left)}" y="${round(top)}" width="${round(box.width)}" height="${round(box.height)}" rx="${round(radius)}"/>`;
}

function isDiamond(kind: FlowNodeKind): boolean {
  return kind === "judgment" || kind === "decision" || kind === "choice";
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Text and attribute values: `&`, `<`, `>` and both quotes as entities. */
export function escapeXml(text: string): string {
  return printable(text).replace(/[&<>"']/g, (character) => `&#${character.codePointAt(0)};`);
}
