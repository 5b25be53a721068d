import type { SourceRange } from "../ast.js";
import type { DiagnosticCode, Severity } from "./codes.js";

export type { DiagnosticCode, Severity } from "./codes.js";

/** A problem found in a `.prose` file. Created only through `messages.ts`, so every text lives there. */
export interface Diagnostic {
  /** One of the codes in `codes.ts`. */
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  /** What is wrong, naming the thing; then how to fix it when that is not obvious. */
  readonly message: string;
  readonly range: SourceRange;
  /** A short suggestion shown under the code frame (`help: ...`). */
  readonly hint?: string;
  /** Other places in the same file the message refers to ("first defined here"). */
  readonly related?: readonly RelatedLocation[];
}

export interface RelatedLocation {
  readonly message: string;
  readonly range: SourceRange;
}

/** A source file and what was found in it. */
export interface FileDiagnostics {
  readonly file: string;
  readonly source: string;
  readonly diagnostics: readonly Diagnostic[];
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((diagnostic) => diagnostic.severity === "error");
}

/** Orders diagnostics by position, then code, so output is stable whatever order phases found them in. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort((a, b) => a.range.start.offset - b.range.start.offset || a.code.localeCompare(b.code));
}
