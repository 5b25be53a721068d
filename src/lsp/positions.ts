/**
 * Source ranges as LSP ranges. prosec's lines and columns are 1-based and count UTF-16 code units,
 * LSP's are 0-based and (by default) count the same units: the conversion is a shift.
 */
import type { Range } from "vscode-languageserver";
import type { SourceRange } from "../ast.js";

export function toRange(range: SourceRange): Range {
  return {
    start: { line: range.start.line - 1, character: range.start.column - 1 },
    end: { line: range.end.line - 1, character: range.end.column - 1 },
  };
}
