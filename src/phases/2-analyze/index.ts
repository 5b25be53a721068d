import type { Program } from "../../ast.js";
import { Analyzer, type AnalyzeOptions } from "./analyzer.js";
import { nameTargets } from "./name-targets.js";
import { calledBlocks } from "./called-blocks.js";
import { readBindings, usedAgents } from "./read-bindings.js";
import { checkRecordFields } from "./record-shapes.js";
import { checkTypedAccess, typedValues } from "./typed-values.js";
import type { Analysis } from "./types.js";

export type { AnalyzeOptions, ImportedProgram } from "./analyzer.js";
export type { DeclaredMcpServers } from "./rules/rule.js";
export type * from "./types.js";
export { visibleSymbols } from "./scope.js";
export { boundNames } from "./bindings.js";
export { permissionKinds, propertyNames } from "../../../runtime/vocabulary.js";
export { propertyWords } from "./rules/properties.js";
export { closest } from "./suggest.js";
export { inputQuestion } from "./input-question.js";
export { promptedGlob } from "./mcp-entries.js";
export {
  destructuredOutput,
  inferValueTypes,
  readBeforeJoin,
  resultValueType,
  union,
  type ValueType,
  type ValueTypes,
} from "./value-types.js";
export { judgedKinds } from "./visible-values.js";
export { branchBinding } from "./parallel-plan.js";
export { returnsOf, schemaOf, sessionReturns, typeWords, type JsonSchema } from "./result-types.js";
export { costEstimator, programCost, type CostOptions } from "./cost/analyze.js";
export type { CostEstimator } from "./cost/estimator.js";
export type { CostVector } from "./cost/vector.js";
export { DEFAULT_MODEL } from "./cost/assumptions.js";
export { Poly } from "./cost/poly.js";
export { dollarCount, formatCount, formatDollars, formatNumber } from "./cost/format.js";

/** Resolves names and scopes and validates the program. Never throws; never mutates the AST. */
export function analyze(program: Program, options: AnalyzeOptions = {}): Analysis {
  const analysis = new Analyzer(program, options).run();
  const typed = typedValues(analysis);
  const diagnostics = [
    ...analysis.diagnostics,
    ...checkTypedAccess(analysis, typed),
    ...checkRecordFields(analysis, typed),
  ];
  const named = { ...analysis, diagnostics, typed, ...nameTargets(analysis) };
  // What the program uses of what it defines, in the code a run can reach (read-bindings.ts).
  const reachable = { ...named, calledBlocks: calledBlocks(named) };
  const agents = usedAgents(reachable);
  return { ...reachable, usedAgents: agents, readBindings: readBindings(reachable, agents) };
}
