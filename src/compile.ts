/**
 * One program, source text to formatted TypeScript: parse, analyse, lower, format. Never throws on
 * user input: a program with errors yields its diagnostics and no code.
 */
import { createHash } from "node:crypto";
import { hasErrors, sortDiagnostics, type Diagnostic } from "./diagnostics/diagnostic.js";
import { buildMessages } from "./diagnostics/messages.js";
import type { Analysis, ImportedProgram } from "./phases/2-analyze/index.js";
import type { ProgramCost } from "../runtime/bound.js";
import { programCost } from "./phases/2-analyze/cost/analyze.js";
import { format, lower } from "./phases/3-transform/index.js";
import { checkSource } from "./pipeline.js";
import { compilerVersion } from "./version.js";

/** What a local `use` path leads to: the imported program's interface (and cost bound), or why there is none. */
export type ImportResolution = (ImportedProgram & { readonly cost?: ProgramCost }) | ImportProblem;

export interface ImportProblem {
  readonly problem: "missing" | "has-errors";
  /** The file looked for, as shown to the user. */
  readonly resolved: string;
}

export interface CompileOptions {
  /** Resolves a local `use "./x.prose"` (checks calls against its inputs and outputs). */
  readonly resolveImport?: (path: string) => ImportResolution;
  /** Written to the module's line 2; defaults to the hash of the compiler version and the source. */
  readonly inputHash?: string;
  /** Treat warnings as errors. */
  readonly strict?: boolean;
}

export interface CompileResult {
  /** The formatted module; absent when the program has errors. */
  readonly code?: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** `file` is the source path as users see it (relative, `/`-separated): it is written into the module. */
export async function compile(source: string, file: string, options: CompileOptions = {}): Promise<CompileResult> {
  const lowered = lowerSource(source, file, options);
  if (lowered.code === undefined) return lowered;
  return { code: await format(lowered.code), diagnostics: lowered.diagnostics };
}

/** Everything but formatting (benchmarks time the two apart). */
export function lowerSource(source: string, file: string, options: CompileOptions = {}): CompileResult {
  const { analysis, diagnostics, cost } = analyzeSource(source, options);
  if (analysis === undefined || cost === undefined) return { diagnostics };
  const inputHash = options.inputHash ?? hashInputs(source, []);
  const code = lower(analysis, { source: file, sourceText: source, compilerVersion, inputHash, cost });
  return { code, diagnostics };
}

export interface CostResult {
  /** Absent when the program has errors. */
  readonly cost?: ProgramCost;
  readonly diagnostics: readonly Diagnostic[];
}

/** The program's static cost bound (what `prosec cost` prints and `prosec build` writes into the metadata). */
export function costOfSource(source: string, options: CompileOptions = {}): CostResult {
  const { cost, diagnostics } = analyzeSource(source, options);
  return cost === undefined ? { diagnostics } : { cost, diagnostics };
}

/** Parse, analyse and bound the cost; the analysis and cost are absent when there are errors. */
function analyzeSource(source: string, options: CompileOptions): { analysis?: Analysis; cost?: ProgramCost; diagnostics: readonly Diagnostic[] } {
  const problems = new Map<string, ImportProblem>();
  const costs = new Map<string, ProgramCost>();
  const resolveImport = (path: string): ImportedProgram | undefined => {
    const resolution = options.resolveImport?.(path);
    if (resolution !== undefined && "inputs" in resolution && resolution.cost !== undefined) costs.set(path, resolution.cost);
    if (resolution === undefined || !("problem" in resolution)) return resolution;
    problems.set(path, resolution);
    return undefined;
  };
  const checked = checkSource(source, { resolveImport, strict: options.strict });
  const importDiagnostics = [...(checked.analysis?.imports.values() ?? [])].flatMap((use) => {
    const problem = problems.get(use.source.value);
    if (problem === undefined) return [];
    return problem.problem === "missing" ? [buildMessages.importNotFound(use.source.loc, use.source.value, problem.resolved)] : [buildMessages.importHasErrors(use.source.loc, use.source.value)];
  });
  const diagnostics = sortDiagnostics([...checked.diagnostics, ...importDiagnostics]);
  const analysis = checked.analysis;
  if (analysis === undefined || hasErrors(diagnostics)) return { diagnostics };
  const cost = programCost(analysis, { imported: (alias) => costs.get(analysis.imports.get(alias)?.source.value ?? "") });
  return { analysis, cost, diagnostics };
}

/** The hash on a module's line 2: compiler version, the source and the sources it imports. */
export function hashInputs(source: string, importedSources: readonly string[]): string {
  const hash = createHash("sha256").update(`prosec ${compilerVersion}\0`).update(source);
  for (const imported of importedSources) hash.update("\0").update(imported);
  return hash.digest("hex");
}
