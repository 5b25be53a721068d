/**
 * A name that a statement binds and that its own value binds too (a `parallel` branch `x = ...`, a
 * `do:` body's `x = ...`: both visible after the statement) is E019 at the statement's name, where the
 * fix goes, saying that the other binding is inside the value and how to fix it; not "already
 * declared on line 3, first declared here" for a line below it.
 */
import { describe, expect, it } from "vitest";
import { checkSource } from "../../src/pipeline.js";
import { formatDiagnostic } from "../../src/diagnostics/format.js";
import { lines } from "../support/lines.js";

function printed(source: string): string {
  return checkSource(source)
    .diagnostics.map((diagnostic) => formatDiagnostic("p.prose", source, diagnostic))
    .join("\n");
}

describe("a name bound by a statement and inside its value", () => {
  it("`let { x } = parallel:` with a branch `x = ...`: remove the destructuring", () => {
    expect(printed(lines("let { x } = parallel:", '  a = session "A"', '  x = session "B"', "output x"))).toBe(
      lines(
        "p.prose:1:7 error E019 `x` is bound twice: `x = ...` on line 3, inside this statement's value, binds it after the statement too",
        "> 1 | let { x } = parallel:",
        "    |       ^",
        '  2 |   a = session "A"',
        "  help: remove `let { x } =`: line 3 binds `x` without it; or rename one of the two",
        "  note: p.prose:3:3 `x` bound here, inside the value",
      ),
    );
  });

  it("with more names in the braces: leave this one out", () => {
    const diagnostics = checkSource(
      lines("const { a, x } = parallel:", '  x = session "B"', '  y = session "C"', "output x = a"),
    ).diagnostics;
    expect(diagnostics.map((d) => [d.code, d.range.start.line, d.range.start.column, d.hint])).toEqual([
      // The parallel's record has `x` and `y` only: `a` would always be null.
      ["P063", 1, 9, "read a field the record has, or add this one where the record is written"],
      ["E019", 1, 12, "leave `x` out of the braces: line 2 binds it without them; or rename one of the two"],
    ]);
  });

  it.each([
    ["a parallel branch", lines("let x = parallel:", '  a = session "A"', '  x = session "B"', "output x"), 3],
    ["a do: body", lines("const x = do:", '  x = session "B"', "output x"), 2],
  ])("`let x = ...` whose value binds `x` in %s: bind the value to another name", (_, source, inner) => {
    const [diagnostic, ...rest] = checkSource(source).diagnostics;
    expect(rest).toEqual([]);
    expect(diagnostic!.code).toBe("E019");
    expect(diagnostic!.range.start).toMatchObject({ line: 1, column: source.startsWith("let") ? 5 : 7 });
    expect(diagnostic!.hint).toBe(
      `bind the value to another name (\`let x_all = ...\`), or rename the \`x\` on line ${inner}`,
    );
    expect(diagnostic!.related).toEqual([
      {
        message: "`x` bound here, inside the value",
        range: expect.objectContaining({ start: expect.objectContaining({ line: inner, column: 3 }) }),
      },
    ]);
  });

  it("a name declared before the statement is the plain E019", () => {
    const [diagnostic] = checkSource(lines('let x = "a"', "let { x } = { x: 1 }")).diagnostics;
    expect(diagnostic!.message).toBe("`x` is already declared in this scope on line 1");
    expect(diagnostic!.related?.[0]?.message).toBe("first declared here");
  });
});
