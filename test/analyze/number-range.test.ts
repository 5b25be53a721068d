/**
 * A number literal too large for a JavaScript number (P043): it would run as `Infinity` in the
 * generated module, so it is an error with its place, a code frame and a hint, and no module is
 * written. A large number that still fits is no error.
 */
import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { formatDiagnostic } from "../../src/diagnostics/format.js";

const HUGE = `1${"0".repeat(399)}`;

function check(source: string) {
  const { code, diagnostics } = lowerSource(source, "numbers.prose");
  return {
    code,
    diagnostics,
    found: diagnostics.map((d) => [d.code, d.severity, d.range.start.line, d.range.start.column]),
  };
}

describe("a number too large (P043)", () => {
  it("is an error where it stands, with a code frame and a hint, and no module", () => {
    const source = `let size = ${HUGE}\nsession "Write {size} words"\n`;
    const { code, diagnostics, found } = check(source);
    expect(found).toEqual([["P043", "error", 1, 12]]);
    expect(diagnostics[0]!.range.end).toMatchObject({ line: 1, column: 12 + HUGE.length });
    expect(code).toBeUndefined();
    const text = formatDiagnostic("numbers.prose", source, diagnostics[0]!);
    expect(text).toMatch(/^numbers\.prose:1:12 error P043 this number is too large: its 400 digits/);
    expect(text).toContain("would run as Infinity");
    expect(text).toMatch(/\n\s*> 1 \|/);
    expect(text).toContain("help: write a smaller number");
  });

  it("is reported once as a count, a modifier's value, an input's default and an index", () => {
    const { found } = check(
      [
        `repeat ${HUGE}:`,
        '  session "Again"',
        `input depth: ${HUGE}`,
        `let items = ["a"]`,
        `let first = items[${HUGE}]`,
        `loop until **done** (max: ${HUGE}):`,
        '  session "Go on"',
        "",
      ].join("\n"),
    );
    expect(found).toEqual([
      ["P043", "error", 1, 8],
      ["P043", "error", 3, 14],
      ["P043", "error", 5, 19],
      ["P043", "error", 6, 27],
    ]);
  });

  it("is reported for a modifier written out rather than evaluated: a parallel's count", () => {
    const { code, found } = check(
      [
        `parallel ("any", count: ${HUGE}):`,
        '  session "A"',
        '  session "B"',
        `parallel (${HUGE}):`,
        '  session "C"',
        "",
      ].join("\n"),
    );
    expect(found).toEqual([
      ["P043", "error", 1, 25],
      ["P003", "error", 4, 11],
      ["P043", "error", 4, 11],
    ]);
    expect(code).toBeUndefined();
  });

  it("is no error for a large number that fits", () => {
    const big = `1${"0".repeat(300)}`;
    const { code, found } = check(`let size = ${big}\noutput size = size\n`);
    expect(found).toEqual([]);
    expect(code).toContain(big);
  });
});
