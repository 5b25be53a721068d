/**
 * P063: a field read off a record whose shape the program writes (a literal, a `parallel:` of named
 * branches, a field of either) that the record does not have: always `null` at run time, so the
 * compiler says so, with the fields there are and did-you-mean. Where the shape is not known (text, an
 * input, a parameter, a record bound to something else too) nothing is reported.
 */
import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";

function found(...lines: string[]) {
  const { diagnostics } = lowerSource(`${lines.join("\n")}\n`, "records.prose");
  return diagnostics.map((d) => ({
    code: d.code,
    line: d.range.start.line,
    column: d.range.start.column,
    message: d.message,
    hint: d.hint,
  }));
}

const codes = (...lines: string[]) => found(...lines).map((each) => `${each.code}@${each.line}:${each.column}`);

describe("a field a written record does not have (P063)", () => {
  it("in a placeholder: an error at the field, naming the fields there are", () => {
    expect(found('let r = { a: "x", title: "t" }', 'session "use {r.b}"')).toEqual([
      {
        code: "P063",
        line: 2,
        column: 17,
        message: "`b` is not a field of `r`, which has `a`, `title`: reading it always gives null",
        hint: "read a field the record has, or add this one where the record is written",
      },
    ]);
  });

  it("one edit from a field of three or more characters: did you mean it", () => {
    const [diagnostic] = found('const r = { a: "x", title: "t" }', "let s = r.titel");
    expect(diagnostic).toMatchObject({
      code: "P063",
      line: 2,
      column: 11,
      message: expect.stringContaining("reading it always gives null. Did you mean `title`?"),
      hint: "write `title`",
    });
  });

  it("in every form a field is read: a member, a quoted index, a destructuring, a nested record", () => {
    expect(
      codes(
        'let r = { a: "x", nested: { y: "2" }, "quoted key": "q" }',
        'let one = r["b"]',
        "let { a, w } = r",
        'session "{r.nested.yy} {r.nested.y} {r.a}"',
        'let two = r["quoted key"]',
      ),
    ).toEqual(["P063@2:13", "P063@3:10", "P063@4:20"]);
  });

  it("a parallel's record of its named branches", () => {
    expect(
      codes("let r = parallel:", '  a = session "A"', '  b = session "B"', 'session "use {r.c} {r.a} {r.b}"'),
    ).toEqual(["P063@4:17"]);
  });

  it("through names and shorthands: a record copied, a record in a record", () => {
    expect(
      codes(
        'let inner = { token: "t" }',
        "let outer = { inner }",
        "let copy = outer",
        'session "{copy.inner.tokn} {copy.inner.token}"',
      ),
    ).toEqual(["P063@4:22"]);
  });

  it("a record bound in two branches: a field either gives is known", () => {
    expect(
      codes(
        'input mode: "Which mode?"',
        'let r = { a: "x" }',
        'if mode == "full":',
        '  r = { a: "x", b: "y" }',
        'session "{r.b} {r.c}"',
      ),
    ).toEqual(["P063@5:19"]);
  });

  it("not where the shape is not known: text, inputs, parameters, a binding also bound to a session", () => {
    expect(
      codes(
        'input config: { a: "x" }',
        'let text = session "Give me JSON"',
        'let mixed = { a: "x" }',
        'mixed = session "Or this"',
        "block use_it(p):",
        '  session "{p.b}"',
        "do use_it({ a: 1 })",
        "let parts = parallel:",
        '  a = session "A"',
        '  session "B"',
        'session "{config.b} {text.b} {mixed.b} {parts.b}"',
        'let literal = { a: "x" }',
        'session "{literal.a.b}"',
      ),
    ).toEqual([]);
  });

  it("a typed result destructured: a field its `returns:` does not declare is P050, as when read", () => {
    expect(
      found(
        'let risk = session "The worst risk"',
        "  returns: { title: string, severity: string }",
        "let { titel, severity } = risk",
      ),
    ).toMatchObject([{ code: "P050", line: 3, column: 7, hint: "write `title`" }]);
  });

  it("through 20,000 names each bound to the one before: still found, never out of stack", () => {
    const copies = Array.from({ length: 19_999 }, (_, index) => `let a${index + 1} = a${index}`);
    expect(codes('let a0 = { x: "1" }', ...copies, 'session "{a19999.y} {a19999.x}"')).toEqual(["P063@20001:18"]);
  });

  it("a typed result kept in a parallel's record or a record literal: P050 on its fields", () => {
    expect(
      codes(
        "let r = parallel:",
        '  risk = session "The worst risk"',
        "    returns: { title: string }",
        '  plan = session "A plan"',
        'let worst = session "Worst"',
        "  returns: { title: string }",
        "let kept = { worst }",
        'session "{r.risk.titel} {r.risk.title} {kept.worst.titel} {r.plan.anything}"',
      ),
    ).toEqual(["P050@8:18", "P050@8:52"]);
  });

  it("not a typed branch's fields when the branch may not give its result: a race, on-fail continue", () => {
    expect(
      codes(
        'let r = parallel ("first"):',
        '  risk = session "The worst risk"',
        "    returns: { title: string }",
        '  plan = session "A plan"',
        'let s = parallel (on-fail: "continue"):',
        '  risk = session "The worst risk"',
        "    returns: { title: string }",
        '  plan = session "A plan"',
        'session "{r.risk.error} {s.risk.error}"',
      ),
    ).toEqual([]);
  });
});
