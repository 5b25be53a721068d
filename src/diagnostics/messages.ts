/**
 * Every diagnostic prosec reports, in one place (as Svelte keeps its errors): one function per
 * code, taking what the message names. Phases call these and never build message text themselves.
 *
 * Codes E001–E028 and W001–W011 are compiler.md's; prosec's own codes are P-prefixed and
 * documented in the README. Sections below are per phase; keep each sorted by code.
 */
import type { SourceRange } from "../ast.js";
import type { Diagnostic } from "./diagnostic.js";

function error(code: string, range: SourceRange, message: string, hint?: string): Diagnostic {
  return hint === undefined ? { code, severity: "error", message, range } : { code, severity: "error", message, range, hint };
}

function warning(code: string, range: SourceRange, message: string, hint?: string): Diagnostic {
  return hint === undefined
    ? { code, severity: "warning", message, range }
    : { code, severity: "warning", message, range, hint };
}

/** `name` in backticks, as every message quotes source names. */
export function quote(name: string): string {
  return `\`${name}\``;
}

// ---------------------------------------------------------------------------------------------
// 1-parse: lexical and syntax errors
// ---------------------------------------------------------------------------------------------

export const parseMessages = {
  unterminatedString: (range: SourceRange, triple: boolean) =>
    error(
      "E001",
      range,
      triple ? "unterminated multi-line string" : "unterminated string literal",
      triple ? 'close it with `"""` on a line indented no deeper than the line that opened it' : 'close it with `"` on the same line',
    ),
};

// ---------------------------------------------------------------------------------------------
// 2-analyze: names, scopes and validation
// ---------------------------------------------------------------------------------------------

export const analyzeMessages = {};

// ---------------------------------------------------------------------------------------------
// 3-transform / build
// ---------------------------------------------------------------------------------------------

export const buildMessages = {};

