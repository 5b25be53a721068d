/**
 * A `filter:` stage ending in a session reads that session's answer as keep or drop. A `returns:` of
 * its own would type nothing: other than `boolean` (what a verdict is) it is P049 at `returns:`, with
 * the fix; before, it was dropped without a word. A typed session that is not the verdict, and the
 * fix the hint gives (bind the typed result, end the stage with the test), compile clean.
 */
import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { formatDiagnostic } from "../../src/diagnostics/format.js";
import { lines } from "../support/lines.js";

const program = (...stage: string[]) =>
  lines('let xs = ["a", "b"]', "let ys = xs | filter:", ...stage, "output kept = ys");

describe("returns: on a filter's verdict", () => {
  it.each(["{ score: number }", "string", '"yes" | "no"', "boolean[]", "boolean | null"])(
    "`returns: %s` is P049 at `returns:`",
    (type) => {
      const { code, diagnostics } = lowerSource(
        program('  session "Is {item} good?"', `    returns: ${type}`),
        "f.prose",
      );
      expect(code).toBeUndefined();
      expect(diagnostics.map((d) => [d.code, d.range.start.line, d.range.start.column])).toEqual([["P049", 4, 5]]);
    },
  );

  it("says why and how to fix it, with a code frame", () => {
    const source = program('  session "Rate {item}"', "    returns: { score: number }");
    const [diagnostic] = lowerSource(source, "f.prose").diagnostics;
    expect(formatDiagnostic("f.prose", source, diagnostic!)).toBe(
      lines(
        "f.prose:4:5 error P049 `returns: { score: number }` on a `filter:` verdict: the filter reads this session's answer as keep or drop, never as { score: number }",
        '  3 |   session "Rate {item}"',
        "> 4 |     returns: { score: number }",
        "    |     ^^^^^^^",
        "  5 | output kept = ys",
        "  help: remove `returns:` (the model is asked to keep or drop the item), or bind the typed result and end the stage with the test that decides: `let rating = session ...` with `returns:`, then `rating.score > 3`",
      ),
    );
  });

  it("`returns: boolean` is what a verdict is: clean, asked as keep or drop", () => {
    const { code, diagnostics } = lowerSource(
      program('  session "Is {item} good?"', "    returns: boolean"),
      "f.prose",
    );
    expect(diagnostics).toEqual([]);
    expect(code).toContain("keep: true");
  });

  it("a typed session before the verdict, the hint's fix and a typed map item are clean", () => {
    const typedFirst = program(
      '  let rating = session "Rate {item}"',
      "    returns: { score: number }",
      '  session "Keep {item}, rated {rating.score}?"',
    );
    const fixed = program(
      '  let rating = session "Rate {item}"',
      "    returns: { score: number }",
      "  rating.score > 3",
    );
    const mapped = lines(
      'let xs = ["a"]',
      "let ys = xs | map:",
      '  session "Rate {item}"',
      "    returns: { score: number }",
      "output kept = ys",
    );
    for (const source of [typedFirst, fixed, mapped]) {
      const { code, diagnostics } = lowerSource(source, "f.prose");
      expect(diagnostics, source).toEqual([]);
      expect(code, source).toContain("returns: {");
    }
  });
});
