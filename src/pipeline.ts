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
  /** Absent when the program has syntax errors: names are only resolved in a complete tree. */
  readonly analysis?: Analysis;
  readonly diagnostics: readonly Diagnostic[];
}

export function checkSource(source: string, options: CheckOptions = {}): CheckResult {
  const parsed = parse(source);
  const analysis = hasErrors(parsed.diagnostics) ? undefined : analyze(parsed.ast, options);
  const diagnostics = sortDiagnostics([...parsed.diagnostics, ...(analysis?.diagnostics ?? [])]);
  return { ast: parsed.ast, analysis, diagnostics: options.strict ? diagnostics.map(asError) : diagnostics };
}

function asError(diagnostic: Diagnostic): Diagnostic {
  return diagnostic.severity === "error" ? diagnostic : { ...diagnostic, severity: "error" };
}
