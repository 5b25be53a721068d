/** The run's graph with its state: the SVG of `prosec graph`, each node marked with its line's state. */
import { graphOfSource, type FlowGraph } from "../graph/index.js";
import { drawSvg, layoutGraph, type GraphLayout } from "../graph/to-svg.js";
import type { StepState } from "./step-columns.js";

/** Layouts by program text: a live page redraws the graph at every new step, the layout stays. */
const layouts = new Map<string, { graph: FlowGraph; layout: GraphLayout } | undefined>();
const LAYOUTS_KEPT = 8;

export function runGraphSvg(
  source: string,
  lines: ReadonlyArray<{ readonly line: number; readonly state?: StepState }>,
): string | undefined {
  if (!layouts.has(source)) {
    if (layouts.size >= LAYOUTS_KEPT) layouts.delete(layouts.keys().next().value!);
    const graph = graphOfSource(source).graph;
    layouts.set(source, graph === undefined ? undefined : { graph, layout: layoutGraph(graph) });
  }
  const laid = layouts.get(source);
  if (laid === undefined) return undefined;
  const { graph, layout } = laid;
  const state = new Map(lines.map((line) => [line.line, line.state]));
  return drawSvg(graph, layout, {
    nodeClasses: (node) => {
      const lineState = node.line === 0 ? undefined : state.get(node.line);
      return lineState === undefined ? [] : [`run-${lineState}`];
    },
  });
}
