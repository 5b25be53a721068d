/**
 * The front half of the compiler, shared by `prosec check`, `prosec build` and the API: parse,
 * then analyse, collecting every diagnostic.
 */
import type { Program } from "./ast.js";
import { sortDiagnostics, type Diagnostic } from "./diagnostics/diagnostic.js";
import { parse } from "./phases/1-parse/index.js";

export interface CheckOptions {
  /** Treat warnings as errors. */
  readonly strict?: boolean;
}

export interface CheckResult {
  readonly ast: Program;
  readonly diagnostics: readonly Diagnostic[];
}

export function checkSource(source: string, options: CheckOptions = {}): CheckResult {
  const parsed = parse(source);
  const diagnostics = sortDiagnostics(parsed.diagnostics);
  return { ast: parsed.ast, diagnostics: options.strict ? diagnostics.map(asError) : diagnostics };
}

function asError(diagnostic: Diagnostic): Diagnostic {
  return diagnostic.severity === "error" ? diagnostic : { ...diagnostic, severity: "error" };
}
