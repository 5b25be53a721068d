import { describe, expect, it } from "vitest";
import type {
  BindingStatement,
  BlockDefinition,
  ExpressionStatement,
  SessionExpression,
  StringLiteral,
} from "../../src/ast.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { checkSource } from "../../src/pipeline.js";
import { firstStatement, problems, statements } from "../support/parse-helpers.js";

function promptOf(source: string): StringLiteral {
  const statement = firstStatement(source) as ExpressionStatement;
  return (statement.expression as SessionExpression).prompt!;
}

describe("layout", () => {
  it("accepts any consistent indentation width and CRLF line ends", () => {
    expect(statements('if **x**:\r\n    session "a"\r\n    session "b"\r\nsession "c"\r\n')).toHaveLength(2);
  });

  it("reads a byte order mark opening the file as nothing: same program, same line 1 columns", () => {
    const source = 'if **x**:\r\n  session "a"\r\nlet y = nope\r\nlet z = also-nope # line 4\n';
    const plain = parse(source);
    const marked = parse(`\ufeff${source}`);
    expect(marked.diagnostics).toEqual([]);
    expect(statements(`\ufeff${source}`)).toHaveLength(3);
    // Positions are the same but for offsets, which count the mark.
    const positions = (result: ReturnType<typeof parse>) =>
      JSON.stringify(result.ast.body, (key, value: unknown) => (key === "offset" ? undefined : value));
    expect(positions(marked)).toBe(positions(plain));
    const checked = checkSource(`\ufefflet a = missing\n`).diagnostics;
    expect(checked.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}`)).toEqual(["1:9 P001"]);
    // Only at the very start: a second mark, or one on a later line, is an unexpected character.
    expect(problems(`\ufeff\ufeffsession "a"\n`)).toEqual(["1:1 E004 unexpected character U+FEFF (a byte order mark)"]);
    expect(problems(`session "a"\n\ufeffsession "b"\n`)).toEqual([
      "2:1 E004 unexpected character U+FEFF (a byte order mark)",
    ]);
  });

  it("ignores blank and comment-only lines for indentation", () => {
    const source = 'if **x**:\n  session "a"\n\n# a comment at column 1\n      # a deeper comment\n  session "b"\n';
    expect(statements(source)).toMatchObject([{ clauses: [{ body: [{}, {}] }] }]);
  });

  it("joins lines inside brackets, with comments and blank lines there", () => {
    const source = 'let x = [\n  "a",   # first\n\n      "b",\n]\nsession "c"\n  context: {\n    x,\n  }\n';
    expect(statements(source)).toMatchObject([{ value: { elements: [{}, {}] } }, {}]);
  });

  it("reports a tab in indentation", () => {
    expect(problems('if **x**:\n\tsession "a"\n')).toEqual(["2:1 E005 tab in indentation"]);
  });

  it("reports a dedent to a width never opened", () => {
    expect(problems('if **x**:\n    session "a"\n  session "b"\n')).toContain(
      "3:1 E005 this line is indented by 2 spaces, which matches no enclosing block",
    );
  });

  it("says which block is missing after a colon", () => {
    expect(problems('parallel:\nsession "a"\n')).toEqual(["1:9 E005 expected an indented block after `parallel:`"]);
    expect(problems("loop until **done**:\n")).toEqual([
      "1:20 E005 expected an indented block after `loop until **done**:`",
    ]);
  });

  it("reports unexpected indentation, and says what an indented line under a session must be", () => {
    expect(problems('let x = "a"\n    session "b"\n')).toEqual(["2:5 E005 unexpected indentation"]);
    const [diagnostic] = parse('session "a"\n    session "b"\n').diagnostics;
    expect(diagnostic?.message).toBe('expected `:` after `session`, found `"b"`');
    expect(diagnostic?.hint).toMatch(/properties/);
  });
});

describe("strings", () => {
  it("processes the escapes of single-line strings", () => {
    expect(promptOf('session "a\\\\b \\"q\\" \\n \\t \\{x\\}"\n').value).toBe('a\\b "q" \n \t {x}');
  });

  it("reports an unknown escape with E002", () => {
    expect(problems('session "a\\qb"\n')).toEqual(["1:11 E002 unknown escape sequence `\\q`"]);
  });

  it("reports an unterminated string with E001 and keeps parsing the next statements", () => {
    expect(problems('session "abc\nsession "ok"\nlet = 3\n')).toEqual([
      "1:9 E001 unterminated string literal",
      "3:5 E004 unexpected `=`: expected a name or `{`",
    ]);
  });

  it("reads a CRLF inside a triple-quoted string or a discretion over lines as a line end", () => {
    const prompt = promptOf('session """\r\n  Line {x}\r\n\r\n  next\r\n"""\r\n');
    expect(prompt.value).toBe("\n  Line {x}\n\n  next\n");
    expect(prompt.parts.map((part) => (part.kind === "TextPart" ? part.value : `{${part.kind}}`))).toEqual([
      "\n  Line ",
      "{Placeholder}",
      "\n\n  next\n",
    ]);
    const [statement] = statements('if ***\r\n  the draft is done\r\n  ***:\r\n  session "a"\r\n');
    expect(JSON.stringify(statement)).not.toContain("\\r");
  });

  it("keeps triple-quoted strings raw, with text after the opener and before the closer", () => {
    const prompt = promptOf('session """Run `ls \\` then {"a": 1}\n# Heading at column 1\nend"""\n');
    expect(prompt.value).toBe('Run `ls \\` then {"a": 1}\n# Heading at column 1\nend');
  });

  it("closes a run of more than three quotes with the last three", () => {
    expect(promptOf('session """Ask: "Proceed?"""""\n').value).toBe('Ask: "Proceed?""');
  });

  it('treats a """ on a deeper line as content, and closes on a line no deeper than the opener', () => {
    const source = 'block b:\n  session """\n  Example:\n      prompt: """inner"""\n  """\nsession "next"\n';
    const [block] = parse(source).ast.body;
    const first = (block as BlockDefinition).body[0] as ExpressionStatement;
    const session = (first.expression as SessionExpression).prompt!;
    expect(session.value).toBe('\n  Example:\n      prompt: """inner"""\n  ');
    expect(parse(source).ast.body).toHaveLength(2);
  });

  it("falls back to the first closer when none is at the opener's depth", () => {
    const source = '  session """\n      deep """\nsession "x"\n';
    expect(parse(`if **x**:\n${source}`).diagnostics).toEqual([]);
  });

  it("reports an unterminated triple-quoted string", () => {
    expect(problems('session """never closed\n')[0]).toBe("1:9 E001 unterminated multi-line string");
  });

  it("splits placeholders from text, with member and index paths; other braces are text", () => {
    const prompt = promptOf('session "Hi {name}, {a.b[0].c} {list of parties} {} {\\"json\\": 1}"\n');
    expect(prompt.parts.map((part) => (part.kind === "Placeholder" ? `<${part.text}>` : part.value))).toEqual([
      "Hi ",
      "<{name}>",
      ", ",
      "<{a.b[0].c}>",
      ' {list of parties} {} {"json": 1}',
    ]);
  });

  it("locates placeholders exactly", () => {
    const prompt = promptOf('session "ab {topic}"\n');
    const placeholder = prompt.parts[1]!;
    expect(placeholder.loc.start).toEqual({ line: 1, column: 13, offset: 12 });
    expect(placeholder.loc.end.column).toBe(20);
  });
});

describe("discretion", () => {
  it("single-line with a placeholder, and multi-line with ***", () => {
    const [first, second] = statements(
      "if **{topic} is done**:\n  throw\nloop until ***\n  all good\n*** (max: 3):\n  throw\n",
    );
    expect(first).toMatchObject({
      clauses: [
        { test: { kind: "Discretion", multiline: false, parts: [{ kind: "Placeholder" }, { value: " is done" }] } },
      ],
    });
    expect(second).toMatchObject({
      expression: { condition: { test: { kind: "Discretion", multiline: true, text: "\n  all good\n" } } },
    });
  });
});

describe("names", () => {
  it("hyphenated names, while `a - b` with spaces subtracts", () => {
    expect(statements("let market-trends = depth - 1\n")).toMatchObject([
      { name: { name: "market-trends" }, value: { kind: "Binary", operator: "-" } },
    ]);
  });

  it("contextual keywords are names where a name is expected", () => {
    const source =
      'let context = session "a"\nlet filter = context\nagent session:\n  model: haiku\nlet permissions = session: session\n';
    expect(statements(source)).toMatchObject([
      { name: { name: "context" } },
      { name: { name: "filter" }, value: { kind: "Identifier", name: "context" } },
      { kind: "Agent", name: { name: "session" } },
      { value: { kind: "Session", agent: { name: "session" } } },
    ]);
  });
});

describe("recovery", () => {
  it("reports one error per broken top-level statement, keeps the good ones and marks the skipped ones", () => {
    const result = parse('session "a"\nlet = 1\nsession "b"\nparallel\n  session "c"\nsession "d"\n');
    expect(result.diagnostics.map((d) => `${d.range.start.line} ${d.message}`)).toEqual([
      "2 unexpected `=`: expected a name or `{`",
      "4 expected `:` after `parallel`",
    ]);
    expect(result.ast.body.map((statement) => statement.kind)).toEqual([
      "ExpressionStatement",
      "Recovered",
      "ExpressionStatement",
      "Recovered",
      "ExpressionStatement",
    ]);
  });

  it("reports unknown characters", () => {
    expect(problems('session "a" @ 3\n')).toEqual(["1:13 E004 unexpected character `@`"]);
  });

  it("names what text pasted from elsewhere brings: curly quotes, and spaces that are not spaces", () => {
    const [curly] = parse("output a = session \u201cSay hello\u201d\n").diagnostics;
    expect(curly).toMatchObject({ code: "E004", message: "unexpected character `\u201c` (a curly quote)" });
    expect(curly!.hint).toContain('`"like this"`');
    // Invisible, or drawn as a space: the message names it by code point, since the code frame cannot show it.
    expect(problems("agent w:\n\u00a0\u00a0model: sonnet\n")).toContain(
      "2:1 E004 unexpected character U+00A0 (a no-break space)",
    );
    expect(problems('session "a"\u200b\n')).toEqual(["1:12 E004 unexpected character U+200B (a zero-width space)"]);
    expect(problems('session "a"\u2003\n')).toEqual([
      "1:12 E004 unexpected character U+2003 (a space other than U+0020)",
    ]);
    const [space] = parse('session "a"\u00a0\n').diagnostics;
    expect(space!.hint).toBe(
      "replace it with a plain space, or delete it: text copied from a web page or a chat often brings these",
    );
  });

  it("gives node locations with line, column and offset", () => {
    const statement = firstStatement('\nlet x = session "a"\n') as BindingStatement;
    expect(statement.loc.start).toEqual({ line: 2, column: 1, offset: 1 });
    expect(statement.value.loc.start).toEqual({ line: 2, column: 9, offset: 9 });
    expect(statement.loc.end).toEqual({ line: 2, column: 20, offset: 20 });
  });
});
