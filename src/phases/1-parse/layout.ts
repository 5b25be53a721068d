import type { SourceRange } from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { parseMessages } from "../../diagnostics/messages.js";
import type { LineMap } from "./line-map.js";
import { layoutToken, type Token } from "./token.js";

const openers = new Set(["(", "[", "{"]);
/** The indentation step assumed before a file shows its own (DIALECT.md: 2 spaces in practice). */
const usualStep = 2;
const closers = new Set([")", "]", "}"]);

/**
 * Turns physical lines into logical ones: one NEWLINE per non-blank line, INDENT / DEDENT where the
 * indentation changes, nothing at all inside brackets (implicit line joining). Blank and
 * comment-only lines never affect indentation.
 */
export function* layout(lines: LineMap, raw: Iterable<Token>, diagnostics: Diagnostic[]): Generator<Token> {
  const widths = [0];
  /**
   * For each open width: the indentation of the line that opened it, how many lines stand at it, and
   * the file's indentation step before it (the smallest indent seen so far).
   */
  const levels: Array<{ readonly opener: SourceRange | null; lines: number; readonly step: number }> = [
    { opener: null, lines: 0, step: usualStep },
  ];
  let smallestStep: number | undefined;
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
    const here = lines.range(lineStart, firstOffset);
    if (width > current) {
      widths.push(width);
      levels.push({ opener: here, lines: 1, step: smallestStep ?? usualStep });
      smallestStep = Math.min(smallestStep ?? width - current, width - current);
      yield layoutToken("INDENT", here);
      return;
    }
    while (width < widths[widths.length - 1]!) {
      const enclosing = widths[widths.length - 2]!;
      if (width > enclosing) {
        // Between the enclosing block and this one: the block goes on at this width, so the lines
        // after it parse as meant. When the block's only line so far stands less than a step deeper,
        // and this width is whole steps in, that line was over-indented: reported once, there.
        const level = levels[levels.length - 1]!;
        const over = widths[widths.length - 1]! - width;
        if (level.lines === 1 && level.opener !== null && over < level.step && (width - enclosing) % level.step === 0)
          diagnostics.push(parseMessages.overIndented(level.opener, widths[widths.length - 1]!, width));
        else diagnostics.push(parseMessages.inconsistentDedent(here, width));
        widths[widths.length - 1] = width;
        level.lines++;
        return;
      }
      widths.pop();
      levels.pop();
      yield layoutToken("DEDENT", lines.range(firstOffset, firstOffset));
    }
    levels[levels.length - 1]!.lines++;
  }
}
