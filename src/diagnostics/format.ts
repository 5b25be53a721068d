import { codeFrameColumns } from "@babel/code-frame";
import type { Diagnostic, FileDiagnostics } from "./diagnostic.js";

export interface FormatOptions {
  /** ANSI colours in the code frame. */
  readonly color?: boolean;
}

/** `file:line:col severity CODE message`, then a code frame and the hint. */
export function formatDiagnostic(
  file: string,
  source: string,
  diagnostic: Diagnostic,
  options: FormatOptions = {},
): string {
  const { start, end } = diagnostic.range;
  const heading = `${file}:${start.line}:${start.column} ${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`;
  // A binary file has no text to show (its bytes are never printed).
  const frame = source === "" ? "" : codeFrameColumns(
    source,
    {
      start: { line: start.line, column: start.column },
      end: end.line === start.line && end.column > start.column ? { line: end.line, column: end.column } : undefined,
    },
    { highlightCode: options.color ?? false, linesAbove: 1, linesBelow: 1 },
  );
  const hint = diagnostic.hint ? `\n  help: ${diagnostic.hint}` : "";
  return `${heading}${frame === "" ? "" : `\n${frame}`}${hint}\n`;
}

export interface JsonDiagnostic {
  readonly code: string;
  readonly severity: Diagnostic["severity"];
  readonly message: string;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly hint?: string;
}

/** The `--format json` shape: `{"files":[{"file","diagnostics":[...]}]}`. */
export function toJson(files: readonly FileDiagnostics[]): { files: { file: string; diagnostics: JsonDiagnostic[] }[] } {
  return {
    files: files.map(({ file, diagnostics }) => ({
      file,
      diagnostics: diagnostics.map((diagnostic) => ({
        code: diagnostic.code,
        severity: diagnostic.severity,
        message: diagnostic.message,
        line: diagnostic.range.start.line,
        column: diagnostic.range.start.column,
        endLine: diagnostic.range.end.line,
        endColumn: diagnostic.range.end.column,
        ...(diagnostic.hint ? { hint: diagnostic.hint } : {}),
      })),
    })),
  };
}
