/**
 * `returns:` in the compiler (DIALECT.md, "Typed results"): the type subset parsed with its ranges,
 * what is outside it reported with a code and a hint, typed bindings checked where the program reads
 * them, the cost bound counting the schema and the re-asks, and the generated call and `Outputs`.
 */
import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { analyze, schemaOf, typeWords } from "../../src/phases/2-analyze/index.js";
import type { ResultType } from "../../src/ast.js";

function check(source: string) {
  const { code, diagnostics } = lowerSource(source, "typed.prose");
  return {
    code: code ?? "",
    found: diagnostics.map((d) => ({
      code: d.code,
      line: d.range.start.line,
      column: d.range.start.column,
      message: d.message,
      hint: d.hint,
    })),
  };
}

const session = (type: string) => `let risks = session "List the risks"\n  returns: ${type}\n`;

function typeOf(type: string): ResultType {
  const { ast, diagnostics } = parse(session(type));
  expect(diagnostics).toEqual([]);
  const binding = ast.body[0]!;
  if (binding.kind !== "Binding" || binding.value.kind !== "Session") throw new Error("not a session");
  const value = binding.value.properties[0]!.value;
  if (value.kind !== "TypeAnnotation" || value.type === null) throw new Error("no type");
  return value.type;
}

describe("the type subset", () => {
  it.each([
    ["string", "string"],
    ["number[]", "number[]"],
    ["[boolean]", "boolean[]"],
    ["null | string", "null | string"],
    ['"low" | "medium" | "high"', '"low" | "medium" | "high"'],
    ["{ title: string, detail?: string }", "{ title: string, detail?: string }"],
    ['{ "odd key": number; other: string[] }', '{ "odd key": number, other: string[] }'],
    ["(string | number)[]", "(string | number)[]"],
    ["[{ title: string, tags: [string] }]", "{ title: string, tags: string[] }[]"],
  ])("%s reads as %s", (written, words) => {
    expect(typeWords(typeOf(written))).toBe(words);
  });

  it("a type may go on over lines while a bracket is open, indented under returns:", () => {
    const source =
      'let risks = session "List"\n  returns: [{\n    title: string,\n    severity: "low" | "high"\n  }]\nsession "Next"\n';
    const { found, code } = check(source);
    expect(found).toEqual([]);
    expect(code).toContain('severity: { enum: ["low", "high"] }');
    expect(code).toContain('prompt: "Next"');
  });

  it("the schema: records closed, optional keys not required, literal unions as one enum", () => {
    expect(schemaOf(typeOf('[{ title: string, severity: "low" | "high", detail?: string | null }]'))).toEqual({
      type: "array",
      items: {
        type: "object",
        properties: {
          title: { type: "string" },
          severity: { enum: ["low", "high"] },
          detail: { anyOf: [{ type: "string" }, { type: "null" }] },
        },
        required: ["title", "severity"],
        additionalProperties: false,
      },
    });
  });

  it("a union member written twice is one in the schema: an enum may not repeat a value", () => {
    expect(schemaOf(typeOf('"low" | "high" | "low"'))).toEqual({ enum: ["low", "high"] });
    expect(schemaOf(typeOf('string | "a" | string | "a"'))).toEqual({ anyOf: [{ type: "string" }, { const: "a" }] });
  });
});

describe("what is not in the subset: a code, the place, and what to write", () => {
  it.each([
    ["int[]", "P045", 12, "`int` is not a type `returns:` knows", "write `number`: JSON has one number type"],
    ["Array<string>", "P045", 12, "`Array` is not a type `returns:` knows", "write `string[]` (or `[string]`)"],
    [
      "Array<{ a: string }>",
      "P045",
      12,
      "`Array` is not a type `returns:` knows",
      "write `{ a: string }[]` (or `[{ a: string }]`)",
    ],
    ["{ title: strng }", "P045", 21, "`strng` is not a type `returns:` knows", "did you mean `string`?"],
    [
      "{ detail: string? }",
      "P046",
      22,
      "`string?` is not a type",
      "an optional field is written on its key: `key?: string`; a value that may be null is `string | null`",
    ],
    [
      "[]",
      "P047",
      12,
      "`returns:` has a list type without its item type",
      "write the items' type: `string[]` or `[string]`",
    ],
    ["{ a: string b: number }", "P047", 24, "`returns:` has `b` where `,` or `}` belongs", undefined],
    ["{ a: string, a: number }", "P048", 25, "the record type names `a` twice", "give each field once"],
    [
      '{ ok: boolean, "__proto__"?: string }',
      "P047",
      27,
      "`returns:` names a field `__proto__`, which no answer can carry",
      "give the field another name",
    ],
  ])("%s", (type, code, column, message, hint) => {
    const [first, ...rest] = check(session(type)).found;
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ code, line: 2, column, message });
    if (hint !== undefined) expect(first!.hint).toBe(hint);
  });

  it("a name Object.prototype has is a type's field or an unknown type like any other, never a bracket", () => {
    // A field named `toString` read as a bracket was P047 "closes `toString` with `}`"; `constructor` as a
    // type had the hint "close it with `function Object() { [native code] }`".
    for (const field of ["toString", "constructor", "valueOf", "hasOwnProperty"])
      expect(check(session(`{ ${field}: string, other: [{ ${field}?: number }] }`)).found, field).toEqual([]);
    for (const name of ["constructor", "__proto__", "hasOwnProperty"]) {
      const [first, ...rest] = check(session(name)).found;
      expect(rest, name).toEqual([]);
      expect(first, name).toMatchObject({
        code: "P045",
        column: 12,
        message: `\`${name}\` is not a type \`returns:\` knows`,
        hint: 'the types are string, number, boolean, null, "literal", A | B, T[] or [T], and { key: T, key?: T }; a record\'s fields are written out',
      });
    }
  });

  it("a bracket left open is reported at the bracket, and the program after it still parses", () => {
    const { found } = check(
      'let risks = session "List"\n  returns: [{ title: string\nsession "Next"\n  returns: strin\n',
    );
    expect(found.map((each) => [each.code, each.line, each.column])).toEqual([
      ["P047", 2, 13],
      ["P045", 4, 12],
    ]);
  });

  it("brackets nested thousands deep are one P047 at the first past 100, never a stack overflow (P000)", () => {
    // `returns:` starts at column 12; the 101st bracket is reported.
    for (const [type, column] of [
      [`${"{ a: ".repeat(3000)}string${" }".repeat(3000)}`, 12 + 5 * 100],
      [`${"(".repeat(20_000)}string${")".repeat(20_000)}`, 12 + 100],
      [`${"[".repeat(5000)}string${"]".repeat(5000)}`, 12 + 100],
    ] as const) {
      expect(check(session(type)).found.map((each) => [each.code, each.line, each.column, each.message])).toEqual([
        ["P047", 2, column, "`returns:` nests brackets more than 100 levels deep"],
      ]);
    }
    // At the limit a type still parses (a nesting this deep is then P022, as for any statement).
    expect(check(session(`${"[".repeat(100)}string${"]".repeat(100)}`)).found.map((each) => each.code)).toEqual([
      "P022",
    ]);
  });

  it("returns: with nothing after it", () => {
    expect(check('session "List"\n  returns:\n').found[0]).toMatchObject({
      code: "P047",
      message: "`returns:` has no type",
    });
  });

  it("returns: under permissions: or on resume: types nothing (P049)", () => {
    expect(check('session "x"\n  permissions:\n    returns: string\n').found.map((each) => each.code)).toContain(
      "P049",
    );
    expect(
      check('agent a:\n  persist: true\nresume: a\n  prompt: "Go on"\n  returns: string\n').found.map(
        (each) => each.code,
      ),
    ).toEqual(["P049"]);
  });
});

describe("typed bindings are checked where the program reads them", () => {
  const risks = session('[{ title: string, severity: "low" | "high", detail?: string }]');

  it("a field the type does not declare, with did-you-mean (P050)", () => {
    const { found } = check(`${risks}output top = risks[0].titel\n`);
    expect(found).toEqual([
      expect.objectContaining({
        code: "P050",
        line: 3,
        column: 23,
        message:
          '`titel` is not a field of `{ title: string, severity: "low" | "high", detail?: string }`: did you mean `title`?',
      }),
    ]);
  });

  it("through a for item, and a field of a list (P051)", () => {
    const { found } = check(`${risks}for r in risks:\n  session "Fix {r.severty}"\noutput x = risks.title\n`);
    expect(found.map((each) => [each.code, each.line])).toEqual([
      ["P050", 4],
      ["P051", 5],
    ]);
  });

  it("declared fields, `length`, and text results read as before", () => {
    const { found } = check(
      `${risks}let notes = session "Notes"\noutput a = risks[0].title\noutput b = risks.length\noutput c = notes.whatever\n`,
    );
    expect(found).toEqual([]);
  });

  it("an agent's returns: types its sessions", () => {
    const { found, code } = check(
      'agent lister:\n  returns: string[]\nlet items = session: lister\n  prompt: "List"\noutput first = items.nope\n',
    );
    expect(found.map((each) => each.code)).toEqual(["P051"]);
    expect(code).toBe("");
    const ok = check('agent lister:\n  returns: string[]\noutput items = session: lister\n  prompt: "List"\n');
    expect(ok.code).toContain("export type Outputs = { readonly items: readonly string[]; };");
    expect(ok.code).toContain("rt.session<readonly string[]>({");
  });
});

describe("lowering and the cost bound", () => {
  it("the call names the type, carries the schema, and Outputs has the exact type", () => {
    const { code, found } = check(`${session("[{ title: string, detail?: string }]")}output risks2 = risks\n`);
    expect(found).toEqual([]);
    expect(code).toContain(
      "export type Outputs = { readonly risks2: readonly { readonly title: string; readonly detail?: string; }[]; };",
    );
    expect(code).toContain("await rt.session<readonly { readonly title: string; readonly detail?: string; }[]>({");
    expect(code).toContain(
      'returns: { type: "array", items: { type: "object", properties: { title: { type: "string" }, detail: { type: "string" } }, required: ["title"], additionalProperties: false } }',
    );
  });

  it("a field named like an Object.prototype member is an own key of the schema and of the type", () => {
    const { code, found } = check(`${session("{ toString: number, constructor: string }")}output risks2 = risks\n`);
    expect(found).toEqual([]);
    expect(code).toContain(
      'returns: { type: "object", properties: { toString: { type: "number" }, constructor: { type: "string" } }, required: ["toString", "constructor"], additionalProperties: false }',
    );
  });

  it("a field named `__proto__` is refused: the validator skips it, so no answer could pass", async () => {
    // ajv leaves `__proto__` out of the properties it checks and refuses it as an additional property.
    const ajv = await import("ajv");
    const Ajv = ajv.default as unknown as (typeof ajv)["default"]["default"];
    const validate = new Ajv({ strict: true }).compile({
      type: "object",
      properties: { ["__proto__"]: { type: "string" } },
      required: ["__proto__"],
      additionalProperties: false,
    });
    expect(validate(JSON.parse('{"__proto__":"x"}'))).toBe(false);
    expect(check(session("{ __proto__: string }")).found.map((each) => each.code)).toEqual(["P047"]);
  });

  it("a field read off a typed value has its type or null in Outputs, and `output x = x` keeps x typed", () => {
    const { code, found } = check(
      `${session("[{ title: string, tags?: string[] }]")}output risks = risks\noutput top = risks[0].title\noutput count = risks.length\noutput bad = risks[0].tilte\n`,
    );
    expect(found.map((each) => each.code)).toEqual(["P050"]);
    const fixed = check(
      `${session("[{ title: string, tags?: string[] }]")}output risks = risks\noutput top = risks[0].title\noutput count = risks.length\n`,
    );
    expect(fixed.code).toContain("readonly top: string | null; readonly count: number;");
    expect(fixed.code).toContain("await rt.field<string | null>(");
    expect(code).toBe("");
  });

  it("a map whose item ends in a typed session is a list of that type", () => {
    const source =
      'let topics = ["a", "b"]\nlet scored = topics | map:\n  session "Score {item}"\n    returns: { score: number }\nfor s in scored:\n  session "Use {s.scor}"\n';
    expect(check(source).found.map((each) => each.code)).toEqual(["P050"]);
  });

  it("reading a typed list costs no extraction; the text one does", () => {
    const typed = lowerSource(
      `${session("{ title: string }[]")}for r in risks:\n  session "Fix {r.title}"\n`,
      "a.prose",
    );
    const text = lowerSource('let risks = session "List"\nfor r in risks:\n  session "Fix {r.title}"\n', "b.prose");
    expect(typed.code).toContain("extraction: 0");
    expect(text.code).not.toContain("extraction: 0");
  });

  it("the schema is in every request's input and the forced answer and re-asks are counted", () => {
    const cost = (source: string) => {
      const analysis = analyze(parse(source).ast);
      expect(analysis.diagnostics).toEqual([]);
      return lowerSource(source, "c.prose").code!;
    };
    const plain = cost('let risks = session "List"\n');
    const typed = cost(session('[{ title: string, severity: "low" | "high" }]'));
    const calls = (code: string) =>
      /calls: \{ session: (\d+), judgment: 0, choice: 0, extraction: 0, retry: (\d+) \}/.exec(code)!;
    expect(calls(plain).slice(1)).toEqual(["1", "0"]);
    // One forced answer after text, and two re-asks (the default --reasks).
    expect(calls(typed).slice(1)).toEqual(["2", "2"]);
  });
});
