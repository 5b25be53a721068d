import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { parseMessages } from "../../diagnostics/messages.js";
import type { LineMap } from "./line-map.js";
import { layoutToken, type Token } from "./token.js";

const openers = new Set(["(", "[", "{"]);
const closers = new Set([")", "]", "}"]);

/**
 * Turns physical lines into logical ones: one NEWLINE per non-blank line, INDENT / DEDENT where the
 * indentation changes, nothing at all inside brackets (implicit line joining). Blank and
 * comment-only lines never affect indentation.
 */
export function* layout(lines: LineMap, raw: Iterable<Token>, diagnostics: Diagnostic[]): Generator<Token> {
  const widths = [0];
  let bracketDepth = 0;
  let atLineStart = true;
  let lineHasContent = false;

  for (const token of raw) {
    if (token.type === "NEWLINE") {
      if (bracketDepth > 0) continue;
      if (lineHasContent) yield layoutToken("NEWLINE", token.loc);
      lineHasContent = false;
      atLineStart = true;
      continue;
    }
    if (atLineStart && bracketDepth === 0) {
      atLineStart = false;
      yield* indent(token);
    }
    if (token.type === "punctuation") {
      if (openers.has(token.text)) bracketDepth++;
      else if (closers.has(token.text) && bracketDepth > 0) bracketDepth--;
    }
    yield token;
    lineHasContent = true;
  }

  const end = lines.range(lines.source.length, lines.source.length);
  if (lineHasContent) yield layoutToken("NEWLINE", end);
  while (widths.length > 1) {
    widths.pop();
    yield layoutToken("DEDENT", end);
  }

  function* indent(first: Token): Generator<Token> {
    const firstOffset = first.loc.start.offset;
    const lineStart = lines.lineStart(first.loc.start.line);
    const leading = lines.source.slice(lineStart, firstOffset);
    const tab = leading.indexOf("\t");
    if (tab !== -1) diagnostics.push(parseMessages.tabIndentation(lines.range(lineStart + tab, lineStart + tab + 1)));
    const width = leading.length;
    const current = widths[widths.length - 1]!;
    if (width > current) {
      widths.push(width);
      yield layoutToken("INDENT", lines.range(lineStart, firstOffset));
      return;
    }
    while (width < widths[widths.length - 1]!) {
      widths.pop();
      yield layoutToken("DEDENT", lines.range(firstOffset, firstOffset));
    }
    if (width !== widths[widths.length - 1]) {
      diagnostics.push(parseMessages.inconsistentDedent(lines.range(lineStart, firstOffset), width));
    }
  }
}
