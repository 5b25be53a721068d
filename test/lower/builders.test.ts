/**
 * Lowering builds statements as data (builders.ts) and a statement list edits them by what they
 * are: its finish `x = value;` becomes `const x = value;`, or the bare call when nothing reads it.
 */
import { describe, expect, it } from "vitest";
import { b, print } from "../../src/phases/3-transform/builders.js";
import { awaited, inert, Lines } from "../../src/phases/3-transform/lowered.js";

describe("statement builders", () => {
  it("print declarations with and without a type or a value, assignments and expression statements", () => {
    expect(print(b.const("draft", "await rt.session(x)"))).toBe("const draft = await rt.session(x);");
    expect(print(b.const("$results", "[]", "Value[]"))).toBe("const $results: Value[] = [];");
    expect(print(b.let("answer", "string"))).toBe("let answer: string;");
    expect(print(b.let("answer", "string | null", "null"))).toBe("let answer: string | null = null;");
    expect(print(b.assign("answer", "await rt.session(y)"))).toBe("answer = await rt.session(y);");
    expect(print(b.expression('rt.bind(at, "x", 1)'))).toBe('rt.bind(at, "x", 1);');
    expect(print(b.destructure(["a", null, "c"], "await join", true))).toBe("const [a, , c] = await join;");
    expect(print(b.destructure(["a", "b"], "$parallel", false))).toBe("[a, b] = $parallel;");
    expect(print(b.code("try {"))).toBe("try {");
  });
});

describe("a statement list's finish", () => {
  const list = (): Lines => {
    const lines = new Lines();
    lines.add(b.const("$step", "await rt.session(a)"), "");
    lines.assignFinish("$final", awaited("rt.session(b)"));
    return lines;
  };

  it("is assigned where it stands, and becomes the declaration when the caller declares nothing ahead", () => {
    const lines = list();
    expect(lines.statements).toEqual(["const $step = await rt.session(a);", "$final = await rt.session(b);"]);
    expect(lines.declareFinish("$other")).toBe(false);
    expect(lines.declareFinish("$final")).toBe(true);
    expect(lines.statements).toEqual(["const $step = await rt.session(a);", "const $final = await rt.session(b);"]);
  });

  it("keeps only its call when nothing reads it, and goes when it only reads", () => {
    const called = list();
    expect(called.dropFinish("$final")).toBe(true);
    expect(called.text()).toBe("const $step = await rt.session(a);\nawait rt.session(b);");
    const read = new Lines();
    read.assignFinish("$final", inert("draft"));
    expect(read.dropFinish("$final")).toBe(true);
    expect(read.isEmpty).toBe(true);
  });
});
