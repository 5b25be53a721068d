/**
 * `prosec/runtime`: what generated workflow modules import.
 *
 * A generated module's `run(inputs, options)` is one call to `startRun`; its body calls the
 * `Runtime` methods (sessions, judgments, parallel, ...) and the value helpers below.
 */
import { Run } from "./run/run.js";

export { newRunId } from "./run/run-id.js";
import type { ProgramCost, ProgramInfo, RunOptions, Runtime, Value } from "./types.js";

export type * from "./types.js";
export { StepMismatch } from "./durable/durability.js";
export * from "./deprecated.js";
export { McpServerPool, type McpPoolSettings } from "./kernel/run-mcp.js";
export { EnvironmentError, ProseError, RunStateError, WaitingForInput } from "./errors.js";
export { REPLAYED_SCHEMES, STEP_SCHEME } from "./durable/manifest.js";
export { BudgetExceeded, type BudgetRemedy, type Spent } from "./cost/meter.js";
// A program's bound evaluated with its inputs (docs/cost.md); prices and models are cost.ts's, for prosec's CLI.
export {
  boundDollars,
  evaluate,
  inputValues,
  type CallKind,
  type Count,
  type CostSymbol,
  type ProgramCost,
  type SymbolValues,
} from "./cost.js";
export { add, compare, divide, equals, isTruthy, multiply, subtract, text } from "./values/expressions.js";
export { bindingsInOrder, type BindingsThrough } from "./values/bindings.js";

/** The metadata object of a compiled program (frozen). */
/** A compiled program's metadata: `cost` is there (prosec build always writes it). */
export type CompiledProgramInfo = ProgramInfo & { readonly cost: ProgramCost };

export function defineProgram(info: CompiledProgramInfo): CompiledProgramInfo;
export function defineProgram(info: ProgramInfo): ProgramInfo;
export function defineProgram(info: ProgramInfo): ProgramInfo {
  return Object.freeze({ ...info, inputs: Object.freeze([...info.inputs]), outputs: Object.freeze([...info.outputs]) });
}

/**
 * Runs a program's body with a fresh `Runtime`. Inputs the caller supplies are bound first; others
 * are asked for through `options.onInput`. Rejects with a `ProseError` that names the `.prose` line.
 */
export function startRun<I, O>(
  program: ProgramInfo,
  inputs: I,
  options: RunOptions | undefined,
  body: (rt: Runtime) => Promise<O>,
): Promise<O> {
  const supplied = (inputs ?? {}) as { readonly [name: string]: Value };
  return new Run(program, supplied, options ?? {}).execute(body);
}
