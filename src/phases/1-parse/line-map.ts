import type { Position, SourceRange } from "../../ast.js";

const BYTE_ORDER_MARK = "\ufeff";

/**
 * Converts offsets into 1-based line/column positions. A byte order mark opening the file (editors on
 * Windows write one, and show none) is no part of its first line: that line starts after it.
 */
export class LineMap {
  private readonly lineStarts: number[];

  constructor(readonly source: string) {
    this.lineStarts = [source.startsWith(BYTE_ORDER_MARK) ? BYTE_ORDER_MARK.length : 0];
    for (let index = source.indexOf("\n"); index !== -1; index = source.indexOf("\n", index + 1)) {
      this.lineStarts.push(index + 1);
    }
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** Offset of the first character of a 1-based line. */
  lineStart(line: number): number {
    return this.lineStarts[line - 1] ?? this.source.length;
  }

  position(offset: number): Position {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.lineStarts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: Math.max(1, offset - (this.lineStarts[low] ?? 0) + 1), offset };
  }

  range(start: number, end: number): SourceRange {
    return { start: this.position(start), end: this.position(end) };
  }

  /** Width of the leading whitespace of the line holding `offset`. */
  indentationAt(offset: number): number {
    const start = this.lineStart(this.position(offset).line);
    let index = start;
    while (this.source[index] === " " || this.source[index] === "\t") index++;
    return index - start;
  }
}
