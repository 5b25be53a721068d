/**
 * A record literal that gives a key twice is error P061 in every form of entry, pointing at the second
 * key with a note at the first; the compiler no longer renames it (`"a (2)"`), which kept both values
 * under a key no program could read. Distinct keys, and a context list naming one value twice (its
 * headings made distinct), stay clean.
 */
import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { formatDiagnostic } from "../../src/diagnostics/format.js";
import { lines } from "../support/lines.js";

const bound = lines('let x = "one"', 'let y = "two"', "let access = { token: x }", 'let token = "t"');

function check(source: string) {
  const { code, diagnostics } = lowerSource(source, "records.prose");
  return {
    code,
    diagnostics: diagnostics.map((d) => ({
      code: d.code,
      at: `${d.range.start.line}:${d.range.start.column}`,
      notes: d.related?.map((note) => `${note.range.start.line}:${note.range.start.column} ${note.message}`),
    })),
  };
}

describe("a record that gives a key twice", () => {
  it.each([
    ["two written keys", "{ a: x, a: y }", "a", 14, 20],
    ["a quoted key and a name", '{ "a": x, a: y }', "a", 14, 22],
    ["the shorthand twice", "{ x, x }", "x", 14, 17],
    ["the shorthand and a written key", "{ x, x: y }", "x", 14, 17],
    ["a name and the path shorthand", "{ token, access.token }", "token", 14, 28],
  ])("%s is P061 at the second key, noting the first", (_, record, key, first, second) => {
    const result = check(`${bound}output r = ${record}\n`);
    expect(result.code).toBeUndefined();
    expect(result.diagnostics).toEqual([
      { code: "P061", at: `5:${second}`, notes: [`5:${first} \`${key}\` first given here`] },
    ]);
  });

  it("says what is wrong and how to fix it, with a code frame", () => {
    const source = `${bound}output r = { a: x, a: y }\n`;
    const { diagnostics } = lowerSource(source, "records.prose");
    expect(formatDiagnostic("records.prose", source, diagnostics[0]!)).toBe(
      lines(
        "records.prose:5:20 error P061 this record gives the key `a` twice: a record holds one value per key",
        '  4 | let token = "t"',
        "> 5 | output r = { a: x, a: y }",
        "    |                    ^",
        "  6 |",
        "  help: remove one, or give this value a key of its own (`a_2: ...`)",
        "  note: records.prose:5:14 `a` first given here",
      ),
    );
  });

  it("in a context record, too; a context list naming a value twice is clean", () => {
    expect(check(`${bound}session "S"\n  context: { x, x }\n`).diagnostics.map((d) => d.code)).toEqual(["P061"]);
    const list = check(`${bound}session "S"\n  context: [x, x]\n`);
    expect(list.diagnostics).toEqual([]);
    expect(list.code).toContain('context: { x, "x (2)": x }');
  });

  it("distinct keys, nested records with the same key and one key in two records are clean", () => {
    const result = check(`${bound}output r = { a: { a: x }, b: [{ a: y }, { a: x }], x, token }\n`);
    expect(result.diagnostics).toEqual([]);
    expect(result.code).toContain("{ a: { a: x }, b: [{ a: y }, { a: x }], x, token }");
  });
});
