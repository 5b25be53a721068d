import type { LineMap } from "./line-map.js";

/**
 * Where a `"""` string opened at `start` closes (DIALECT.md, "Lexical layout"); -1 when it never does.
 *
 * - A `"""` later on the opening line closes it.
 * - Otherwise the closer is the first `"""` on a line indented no deeper than the opening line: a
 *   `"""` on a deeper line is content (prompts embed examples of other programs).
 * - Unless every line of the string is indented deeper than the opening line (`prompt: """` at two
 *   spaces, its text and closer at four): then the first `"""` on a line indented no deeper than the
 *   first content line closes it, when a line after it returns to the opening line's indentation
 *   before a `"""` on such a line could close the string (that line is the next statement, and the
 *   next shallow `"""` opens another string).
 * - Failing all of these, the first `"""` closes it.
 */
export function tripleCloser(lines: LineMap, start: number): number {
  const source = lines.source;
  const openingLineEnd = lineEnd(source, start);
  const sameLine = source.indexOf('"""', start + 3);
  if (sameLine !== -1 && sameLine < openingLineEnd) return sameLine;

  const openingIndent = lines.indentationAt(start);
  let firstQuotes = -1;
  let contentIndent = -1;
  /** No line so far returned to the opening line's indentation: the string may be the deeper form. */
  let allDeeper = true;
  let deeperCloser = -1;
  for (let lineStart = openingLineEnd + 1; lineStart < source.length; lineStart = lineEnd(source, lineStart) + 1) {
    const end = lineEnd(source, lineStart);
    const indent = indentation(source, lineStart, end);
    if (lineStart + indent >= end) continue;
    const quotes = source.indexOf('"""', lineStart);
    const here = quotes !== -1 && quotes < end ? quotes : -1;
    if (contentIndent === -1) contentIndent = indent;
    if (here !== -1 && firstQuotes === -1) firstQuotes = here;
    if (indent <= openingIndent) {
      if (here !== -1) return here;
      // A line back at the opening indentation after the deeper closer: the string ended there.
      if (deeperCloser !== -1) return deeperCloser;
      allDeeper = false;
      continue;
    }
    if (here !== -1 && deeperCloser === -1 && allDeeper && contentIndent > openingIndent && indent <= contentIndent)
      deeperCloser = here;
  }
  return deeperCloser !== -1 ? deeperCloser : firstQuotes;
}

function lineEnd(source: string, from: number): number {
  const end = source.indexOf("\n", from);
  return end === -1 ? source.length : end;
}

function indentation(source: string, from: number, end: number): number {
  let index = from;
  while (index < end && (source[index] === " " || source[index] === "\t" || source[index] === "\r")) index++;
  return index - from;
}
