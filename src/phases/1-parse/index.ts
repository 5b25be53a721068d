import type { Program } from "../../ast.js";
import { type Diagnostic, sortDiagnostics } from "../../diagnostics/diagnostic.js";
import { parseMessages } from "../../diagnostics/messages.js";
import { layout } from "./layout.js";
import { scan } from "./lexer.js";
import { LineMap } from "./line-map.js";
import { parseTokens, type ParseOptions } from "./parser.js";

export type { ParseOptions } from "./parser.js";
export { LineMap } from "./line-map.js";
export { editDistance } from "./spelling.js";
export { reservedInExpressions, statementKeywords } from "./grammar-support.js";

export interface ParseResult {
  readonly ast: Program;
  readonly diagnostics: readonly Diagnostic[];
}

/** Parses a `.prose` source. Never throws: every problem is a diagnostic with a location. */
export function parse(source: string, options: ParseOptions = {}): ParseResult {
  const lines = new LineMap(source);
  try {
    const lexical: Diagnostic[] = [];
    const parsed = parseTokens(lines, layout(lines, scan(lines, lexical), lexical), options);
    return { ast: parsed.ast, diagnostics: sortDiagnostics([...lexical, ...parsed.diagnostics]) };
  } catch (error) {
    const ast: Program = { kind: "Program", body: [], loc: lines.range(0, source.length) };
    return { ast, diagnostics: [parseMessages.internalError(lines.range(0, 0), error)] };
  }
}
