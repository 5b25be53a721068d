/**
 * The front half of the compiler, shared by `prosec check`, `prosec build` and the API: parse,
 * then analyse, collecting every diagnostic.
 */
import type { Program } from "./ast.js";
import { hasErrors, sortDiagnostics, type Diagnostic } from "./diagnostics/diagnostic.js";
import { parse } from "./phases/1-parse/index.js";
import { analyze, type Analysis, type AnalyzeOptions } from "./phases/2-analyze/index.js";

export interface CheckOptions extends AnalyzeOptions {
  /** Treat warnings as errors. */
  readonly strict?: boolean;
}

export interface CheckResult {
  readonly ast: Program;
  /**
   * Also with syntax errors, like tsc: statements that do not parse are skipped (at any depth) and
   * the rest is analysed. Such an analysis is for diagnostics and the language server, never lowered.
   */
  readonly analysis: Analysis;
  /** Whether every statement parsed (no syntax errors). */
  readonly complete: boolean;
  readonly diagnostics: readonly Diagnostic[];
}

export function checkSource(source: string, options: CheckOptions = {}): CheckResult {
  const parsed = parse(source);
  const analysis = analyze(parsed.ast, options);
  const diagnostics = sortDiagnostics([...parsed.diagnostics, ...analysis.diagnostics]);
  const complete = !hasErrors(parsed.diagnostics);
  return { ast: parsed.ast, analysis, complete, diagnostics: options.strict ? diagnostics.map(asError) : diagnostics };
}

function asError(diagnostic: Diagnostic): Diagnostic {
  return diagnostic.severity === "error" ? diagnostic : { ...diagnostic, severity: "error" };
}
