/**
 * `prosec graph`'s model of a program: its control flow with each node's static cost bound and the
 * critical paths marked (`build-flow.ts`), written as Mermaid, DOT or SVG.
 */
import { blameCompiler } from "../diagnostics/compiler-bug.js";
import { hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { checkProgram, type CompileOptions } from "../compile.js";
import { costEstimator } from "../phases/2-analyze/index.js";
import type { ProgramCost } from "../../runtime/cost.js";
import { buildFlow } from "./build-flow.js";
import type { FlowGraph } from "./flow-graph.js";

export type { FlowGraph, FlowNode, FlowEdge, FlowCluster, FlowNodeKind } from "./flow-graph.js";
export { toMermaid } from "./to-mermaid.js";
export { toDot } from "./to-dot.js";
export { toSvg } from "./to-svg.js";

export interface GraphResult {
  /** Absent when the program has errors. */
  readonly graph?: FlowGraph;
  readonly diagnostics: readonly Diagnostic[];
}

export function graphOfSource(
  source: string,
  options: Omit<CompileOptions, "inputHash"> = {},
  file = "<source>",
): GraphResult {
  const checked = checkProgram(source, options, file);
  const analysis = checked.analysis;
  if (!analysis || hasErrors(checked.diagnostics)) return { diagnostics: checked.diagnostics };
  const imported = (alias: string): ProgramCost | undefined => {
    const use = analysis.imports.get(alias);
    const resolution = use === undefined ? undefined : options.resolveImport?.(use.source.value);
    return resolution !== undefined && "inputs" in resolution ? resolution.cost : undefined;
  };
  const graph = blameCompiler(file, () =>
    buildFlow(analysis, source, costEstimator(analysis, { imported }), { imported }),
  );
  return { graph, diagnostics: checked.diagnostics };
}
