import { codeFrameColumns } from "@babel/code-frame";
import type { SourceRange } from "../ast.js";
import type { Diagnostic, FileDiagnostics } from "./diagnostic.js";
import { printable } from "../printable.js";

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
  const { start } = diagnostic.range;
  const heading = shown(
    `${file}:${start.line}:${start.column} ${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`,
  );
  // A binary file has no text to show (its bytes are never printed).
  const frame = source === "" ? "" : codeFrame(shown(source), diagnostic.range, options);
  const hint = diagnostic.hint ? `\n  help: ${shown(diagnostic.hint)}` : "";
  const notes = (diagnostic.related ?? [])
    .map(({ message, range }) => `\n  note: ${shown(`${file}:${range.start.line}:${range.start.column} ${message}`)}`)
    .join("");
  return `${heading}${frame === "" ? "" : `\n${frame}`}${hint}${notes}\n`;
}

/** The widest line a code frame shows whole; a longer one is cut to this many characters around the place. */
const FRAME_WIDTH = 160;
/** How much of a cut line the frame shows before the place. */
const FRAME_LEAD = 60;

/**
 * The lines around `range`, the place marked. A line too long to read (one hostile line can be megabytes)
 * is shown as a window of it, with `…` where it was cut: around the place on the marked line, the same
 * window on a long line beside it; short lines are shown whole.
 */
function codeFrame(text: string, { start, end }: SourceRange, options: FormatOptions): string {
  const lines = text.split("\n");
  const marked = lines[start.line - 1] ?? "";
  const from = marked.length > FRAME_WIDTH ? Math.max(0, start.column - 1 - FRAME_LEAD) : 0;
  const lead = from > 0 ? 1 : 0;
  const first = Math.max(1, start.line - 1);
  const last = Math.min(lines.length, Math.max(start.line, end.line) + 1);
  for (let line = first; line <= last; line++) {
    const whole = lines[line - 1]!;
    if (whole.length <= FRAME_WIDTH && line !== start.line) continue;
    const cut = whole.slice(from, from + FRAME_WIDTH);
    lines[line - 1] = `${from > 0 ? "…" : ""}${cut}${from + FRAME_WIDTH < whole.length ? "…" : ""}`;
  }
  const column = (at: number): number => Math.min(Math.max(at - from, 1), FRAME_WIDTH + 1) + lead;
  return codeFrameColumns(
    lines.join("\n"),
    {
      start: { line: start.line, column: column(start.column) },
      end:
        end.line === start.line && end.column > start.column
          ? { line: end.line, column: column(end.column) }
          : undefined,
    },
    { highlightCode: options.color ?? false, linesAbove: 1, linesBelow: 1 },
  );
}

/**
 * A program's text (someone else's, maybe: a registry program, a file sent over) as a person reads it:
 * each control character a space, so no escape sequence reaches a terminal (a window title, the
 * clipboard) and the frame's columns stay where they were; line breaks (`\n`, `\r\n`) kept.
 * `--format json` keeps the exact text.
 */
function shown(text: string): string {
  return printable(text).replace(/\r(?!\n)/g, " ");
}

/** A place in the file, as JSON output gives it. */
export interface JsonRange {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

export interface JsonDiagnostic extends JsonRange {
  readonly code: string;
  readonly severity: Diagnostic["severity"];
  readonly message: string;
  readonly hint?: string;
  /** Other places the message refers to; present only when there are some. */
  readonly related?: readonly (JsonRange & { readonly message: string })[];
}

/** The `--format json` shape: `{"files":[{"file","diagnostics":[...]}]}`. */
export function toJson(files: readonly FileDiagnostics[]): {
  files: { file: string; diagnostics: JsonDiagnostic[] }[];
} {
  return {
    files: files.map(({ file, diagnostics }) => ({
      file,
      diagnostics: diagnostics.map((diagnostic) => ({
        code: diagnostic.code,
        severity: diagnostic.severity,
        message: diagnostic.message,
        ...jsonRange(diagnostic.range),
        ...(diagnostic.hint ? { hint: diagnostic.hint } : {}),
        ...(diagnostic.related
          ? { related: diagnostic.related.map(({ message, range }) => ({ message, ...jsonRange(range) })) }
          : {}),
      })),
    })),
  };
}

function jsonRange(range: SourceRange): JsonRange {
  return { line: range.start.line, column: range.start.column, endLine: range.end.line, endColumn: range.end.column };
}
