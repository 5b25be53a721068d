/** Code that never runs (warning P040): where it is reported, and where it is not. */
import { describe, expect, it } from "vitest";
import { checkSource } from "../../src/pipeline.js";
import { lines } from "../support/lines.js";

function unreachable(source: string): string[] {
  return checkSource(source)
    .diagnostics.filter((d) => d.code === "P040")
    .map((d) => `${d.range.start.line}:${d.range.start.column}-${d.range.end.line} ${d.message}`);
}

describe("unreachable code (P040)", () => {
  it("after `throw`, `return`, `break` and `continue`: once per body, over all of the dead statements", () => {
    expect(
      unreachable(
        lines(
          "block f():",
          "  return",
          '  session "a"',
          '  session "b"',
          'for x in ["a"]:',
          "  continue",
          '  session "c"',
          "loop (max: 2):",
          "  break",
          '  session "d"',
        ),
      ),
    ).toEqual([
      "3:3-4 this code never runs: the `return` on line 2 always leaves before it",
      "7:3-7 this code never runs: the `continue` on line 6 always leaves before it",
      "10:3-10 this code never runs: the `break` on line 9 always leaves before it",
    ]);
  });

  it("after an `if`/`else`, a `choice` or a `do:` every path of which leaves; not after one with a way on", () => {
    expect(unreachable(lines("if **a**:", '  throw "a"', "else:", '  throw "b"', 'session "after if"'))).toEqual([
      "5:1-5 this code never runs: every branch of the `if` on line 1 always leaves before it",
    ]);
    expect(
      unreachable(
        lines(
          "choice **c**:",
          '  option "A":',
          '    throw "a"',
          '  option "B":',
          "    do:",
          '      throw "b"',
          'session "x"',
        ),
      ),
    ).toEqual(["7:1-7 this code never runs: every option of the `choice` on line 1 always leaves before it"]);
    expect(unreachable(lines("if **a**:", '  throw "a"', 'session "after if"'))).toEqual([]);
    expect(unreachable(lines("try:", '  throw "a"', "catch:", '  session "handled"', 'session "after"'))).toEqual([]);
  });

  it("a block defined below a `throw` is not dead: it can be called above it", () => {
    expect(unreachable(lines("do later()", 'throw "stop"', "block later():", '  session "x"'))).toEqual([]);
  });
});
