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
  unterminatedDiscretion: (range: SourceRange, delimiter: "**" | "***") =>
    error(
      "E001",
      range,
      `unterminated \`${delimiter}\` condition`,
      delimiter === "**" ? "close it with `**` on the same line, or write `***` ... `***` for a condition over several lines" : "close it with `***`",
    ),
  unknownEscape: (range: SourceRange, character: string) =>
    error(
      "E002",
      range,
      character === "" ? "a string cannot end with `\\`" : `unknown escape sequence \`\\${character}\``,
      'the escapes are \\\\ \\" \\n \\t \\{ \\}; write \\\\ for a backslash, or use a """raw""" string',
    ),
  unexpectedCharacter: (range: SourceRange, character: string) =>
    error("E004", range, `unexpected character ${quote(character)}`),
  unexpectedToken: (range: SourceRange, found: string, expected: readonly string[]) =>
    error(
      "E004",
      range,
      expected.length > 0 ? `unexpected ${found}: expected ${oneOf(expected)}` : `unexpected ${found}`,
    ),
  expectedColon: (range: SourceRange, after: string, found: string, isPropertyLine: boolean) =>
    error(
      "E004",
      range,
      `expected \`:\` after ${quote(after)}, found ${found}`,
      isPropertyLine ? "lines indented under an agent or a session are its properties: `name: value`" : undefined,
    ),
  missingBlockColon: (range: SourceRange, construct: string) =>
    error("E004", range, `expected \`:\` after ${construct}`, "a line that opens an indented block ends with `:`"),
  expectedBlock: (range: SourceRange, header: string) =>
    error(
      "E005",
      range,
      `expected an indented block after ${quote(`${header}:`)}`,
      "indent the lines that belong to it (2 spaces is usual)",
    ),
  danglingContinuation: (range: SourceRange, word: string) => {
    switch (word) {
      case "->":
        return error("E004", range, "a line cannot start with `->`", "put `->` and the next step on the same line as the step before it");
      case "|":
        return error("E004", range, "a `|` pipeline stage has no collection before it", "indent the `| stage:` lines under the line that names the collection");
      case "elif":
      case "else":
        return error("E004", range, `\`${word}\` without an \`if\` before it`, `line \`${word}\` up with its \`if\``);
      default:
        return error("E004", range, `\`${word}\` without a \`try:\` before it`, `line \`${word}\` up with its \`try:\``);
    }
  },
  unexpectedIndent: (range: SourceRange) =>
    error("E005", range, "unexpected indentation", "indent a line only under a line ending in `:`, or under a session for its properties; is a `:` missing above?"),
  tabIndentation: (range: SourceRange) =>
    error("E005", range, "tab in indentation", "indent with spaces only"),
  inconsistentDedent: (range: SourceRange, width: number) =>
    error(
      "E005",
      range,
      `this line is indented by ${width} spaces, which matches no enclosing block`,
      "line it up with the block it belongs to",
    ),
  internalError: (range: SourceRange, cause: unknown) =>
    error("P000", range, `internal compiler error: ${cause instanceof Error ? cause.message : String(cause)}`, "please report this with the file"),
};

function oneOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

// ---------------------------------------------------------------------------------------------
// 2-analyze: names, scopes and validation
// ---------------------------------------------------------------------------------------------

export const analyzeMessages = {};

// ---------------------------------------------------------------------------------------------
// 3-transform / build
// ---------------------------------------------------------------------------------------------

export const buildMessages = {};

