/** Syntax real programs use (DIALECT.md): deeper-indented `"""`, multi-line `**`, input defaults, path shorthands. */
import { describe, expect, it } from "vitest";
import type { ExpressionStatement, InputDeclaration, SessionExpression } from "../../src/ast.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { analyze, type ImportedProgram } from "../../src/phases/2-analyze/index.js";
import { checkSource } from "../../src/pipeline.js";
import { programInterface } from "../../src/project/imports.js";
import { problems, statements, withoutLocations } from "../support/parse-helpers.js";

function promptOf(source: string, index = 0): string {
  const statement = parse(source).ast.body[index] as ExpressionStatement;
  const session = statement.expression as SessionExpression;
  const prompt = session.properties.find((property) => property.key.name === "prompt")!.value;
  return prompt.kind === "String" ? prompt.value : "";
}

describe('`"""` content indented deeper than the line that opens it', () => {
  const twoSessions =
    'session "A"\n  prompt: """\n    text A\n    """\nsession "B"\n  prompt: """\n    text B\n    """\n';

  it('closes at the deeper `"""` when the next line returns to the statement\'s indentation', () => {
    expect(problems(twoSessions)).toEqual([]);
    expect(promptOf(twoSessions, 0)).toBe("\n    text A\n    ");
    expect(promptOf(twoSessions, 1)).toBe("\n    text B\n    ");
  });

  it('keeps a deeper `"""` as content when a closer at the opening indentation follows', () => {
    const source = 'session "A"\n  prompt: """\n    Example:\n    x = """\n      inner\n    """\n  """\nsession "B"\n';
    expect(problems(source)).toEqual([]);
    expect(promptOf(source)).toBe('\n    Example:\n    x = """\n      inner\n    """\n  ');
  });

  it("still lets content lines start at column 0", () => {
    const source = 'session "A"\n  prompt: """\n    Intro\n# A heading, not a comment\n  """\n';
    expect(promptOf(source)).toBe("\n    Intro\n# A heading, not a comment\n  ");
  });

  it('reads the last `"""` deeper closer of a file', () => {
    expect(promptOf('session "A"\n  prompt: """\n    only\n    """')).toBe("\n    only\n    ");
  });
});

describe("`**` ending its line", () => {
  it("opens a discretion over several lines, closed by the next `**`, whose text may hold names", () => {
    const source =
      'input topic: "T"\r\ninput approval: **\r\n  Approve {topic}?\r\n**\r\nif **\r\n  it is approved\r\n**:\r\n  session "go"\r\n';
    expect(problems(source)).toEqual([]);
    const input = parse(source).ast.body[1] as InputDeclaration;
    expect(input.prompt?.kind === "Discretion" && input.prompt.multiline).toBe(true);
    expect(withoutLocations(input.prompt)).toMatchObject({
      text: "\n  Approve {topic}?\n",
      parts: [{ kind: "TextPart" }, { kind: "Placeholder", text: "{topic}" }, { kind: "TextPart" }],
    });
    expect(analyze(parse(source).ast).diagnostics).toEqual([]);
  });

  it("is E001 when no `**` closes it", () => {
    expect(problems("input approval: **\n  Approve?\n")).toEqual(["1:17 E001 unterminated `**` condition"]);
  });
});

describe("`input name: <expression>`", () => {
  it("declares an input with a default of any type, over several lines", () => {
    const [lanes, limits, threshold, named] = statements(
      'input lanes: [\n  "a",\n  "b",\n]\ninput limits: { depth: 3 }\ninput threshold: 0.5\ninput topic: "What"\n',
    ) as InputDeclaration[];
    expect(lanes).toMatchObject({ prompt: null, default: { kind: "Array" } });
    expect(limits).toMatchObject({ prompt: null, default: { kind: "Object" } });
    expect(threshold).toMatchObject({ prompt: null, default: { kind: "Number", value: 0.5 } });
    expect(named).toMatchObject({ prompt: { kind: "String", value: "What" }, default: null });
  });

  it("lets a call of the program leave an input with a default out", () => {
    const helper = programInterface('input topic: "T"\ninput depth: 3\noutput summary = session "On {topic}"\n', "h");
    const call = (args: string) =>
      checkSource(`use "./helper" as helper\nlet r = helper(${args})\n`, {
        resolveImport: () => helper as ImportedProgram,
      }).diagnostics.map((d) => `${d.code} ${d.message}`);
    expect(call('topic: "x"')).toEqual([]);
    expect(call('topic: "x", depth: 5')).toEqual([]);
    expect(call("depth: 5")).toEqual(["E026 program `helper` needs input `topic`"]);
  });
});

describe("`{ a.b }` shorthand entries", () => {
  it("means `{ b: a.b }`, for paths of any length", () => {
    const [, statement] = statements("let access = { token: 1 }\nlet c = { access.token, x, deep.a.b }\n") as Array<{
      value: { entries: unknown[] };
    }>;
    expect(statement!.value.entries).toEqual([
      {
        kind: "ObjectEntry",
        key: { kind: "Identifier", name: "token" },
        value: {
          kind: "Member",
          object: { kind: "Identifier", name: "access" },
          property: { kind: "Identifier", name: "token" },
        },
      },
      { kind: "ObjectEntry", key: { kind: "Identifier", name: "x" }, value: null },
      {
        kind: "ObjectEntry",
        key: { kind: "Identifier", name: "b" },
        value: {
          kind: "Member",
          object: {
            kind: "Member",
            object: { kind: "Identifier", name: "deep" },
            property: { kind: "Identifier", name: "a" },
          },
          property: { kind: "Identifier", name: "b" },
        },
      },
    ]);
  });
});
