/**
 * Lowering writes what a program uses and no more, from the analysis' facts (`readBindings`,
 * `usedAgents`, `calledBlocks`), in a small program and in one whose body runs in parts alike:
 * no pass over the written module strikes anything afterwards for it.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { partThreshold } from "../../src/phases/3-transform/parts.js";
import { typecheck } from "../../src/project/typecheck.js";
import { unreadProgram } from "../support/unread-program.js";

function lowered(source: string): string {
  const result = lowerSource(source, "unread.prose");
  expect(result.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  return result.code!;
}

const small = unreadProgram(1);
const large = unreadProgram(20);

describe("what nothing reads is not written", () => {
  it("the large program runs in parts, the small one does not", () => {
    expect(parse(small).ast.body.length).toBeLessThanOrEqual(partThreshold);
    expect(parse(large).ast.body.length).toBeGreaterThan(partThreshold);
    expect(lowered(large)).toContain("async function $chunk1()");
    expect(lowered(small)).not.toContain("$chunk1");
  });

  it.each([
    ["small", small],
    ["large", large],
  ])("%s: an unread binding keeps its call, not its name; a read one keeps both", (_, source) => {
    const code = lowered(source);
    expect(code).not.toMatch(/\bunread0\b/);
    expect(code).toMatch(/^rt\.bind\(\{ line: \d+, column: 5 \}, "unread-0", await rt\.session\(/m);
    expect(code).not.toMatch(/\breport0\b/);
    expect(code).toMatch(/^rt\.bind\(\{ line: \d+, column: 7 \}, "report-0", await rt\.session\(/m);
    // Read by an interpolation, by the session after the branches, by a judgment.
    for (const name of ["kept0", "both0", "seen"]) expect(code).toMatch(new RegExp(`\\b${name} = `));
  });

  it.each([
    ["small", small],
    ["large", large],
  ])("%s: an agent no session names is not written", (_, source) => {
    const code = lowered(source);
    expect(code).not.toContain("unused0");
    expect(code).toMatch(/const used0: AgentDefinition = \{/);
  });

  it("nor is an agent only a block nothing calls names, nor its type when it was the only one", () => {
    const code = lowered(
      'agent helper:\n  model: sonnet\nblock never():\n  session: helper\n    prompt: "x"\nsession "Go"\n',
    );
    expect(code).not.toMatch(/const helper\b/);
    expect(code).not.toContain("AgentDefinition");
  });

  it.each([
    ["small", small],
    ["large", large],
  ])("%s: a loop and a map whose item nothing reads count down; a pmap's callback ends in rt", (_, source) => {
    const code = lowered(source);
    const countDown = /^for \(let (\$remaining\d*) = \(await rt\.list\([^;]*\)\)\.length; \1 > 0; \1--\) \{$/gm;
    // In every section, the `for` and the `map`.
    expect(code.match(countDown)).toHaveLength(source === small ? 2 : 40);
    expect(code).toMatch(
      /rt\.map\(\{ line: \d+, column: \d+ \}, await rt\.list\([^)]*\]\), async \(_item, _index, rt\) => \{$/m,
    );
    expect(code).not.toMatch(/\bconst item of\b/);
  });

  it("a loop keeps the variables its body reads: the index alone, or both", () => {
    const indexOnly = lowered('for item, i in ["a", "b"]:\n  session "Number {i}"\n');
    expect(indexOnly).toContain("for (const [i] of (await rt.list(");
    const both = lowered('for item, i in ["a", "b"]:\n  session "{i}: {item}"\n');
    expect(both).toContain("for (const [i, item] of (await rt.list(");
  });

  it("a program that raises at its end keeps its last session's call, not a final result nothing reads", () => {
    const code = lowered('session "Validate"\nthrow "Invalid"\n');
    expect(code).not.toContain("$final");
    expect(code).toMatch(
      /^await rt\.session\(\{ at: \{ line: 1, column: 1 \}, prompt: "Validate", unbound: true \}\);$/m,
    );
  });
});

describe("a name bound ahead of the branches that bind it", () => {
  const joined = (read: string) =>
    lowered(
      [
        "block scan(focus):",
        "  if **focus is given**:",
        '    answer = session "Direct {focus}"',
        "  else:",
        '    parallel (on-fail: "continue"):',
        '      answer = session "Drafted {focus}"',
        '      other = session "Other {focus}"',
        `  ${read}`,
        'do scan("x")',
      ].join("\n") + "\n",
    );

  it("is declared without `= null` when a parallel's join binds it on the path that reaches a read", () => {
    const code = joined('session "Use {answer}"');
    expect(code).toMatch(/^let answer: Value;$/m);
    expect(code).not.toMatch(/\banswer: [^;]*= null/);
  });

  it("keeps `= null` when a path to a read does not bind it", () => {
    expect(joined('session "Use {other}"')).toMatch(/^let other: Value = null;$/m);
  });
});

describe("the parameters of a parallel item nothing reads", () => {
  const source = [
    'let tags = ["io", "ui"]',
    "parallel for tag in tags:",
    '  session "One more check"',
    "parallel for tag, position in tags:",
    '  session "Check {tag}"',
    "parallel for tag, position in tags:",
    '  session "Check {tag}, number {position}"',
    "let _index = 1",
    "let checks = tags | pmap:",
    '  let _item = session "Check {item} ({_index})"',
    "  output _item",
    "let counts = tags | pmap:",
    '  session "Count the checks"',
    "let notes = []",
    "parallel for tag in tags:",
    '  notes = notes + [session "Note on {tag}"]',
    'session "Sum up {checks}, {counts} and {notes}"',
  ].join("\n");

  it("start with `_`, and the module type-checks with noUnusedParameters and noUnusedLocals", async () => {
    const code = lowered(`${source}\n`);
    expect(code).toMatch(/async \(_item, _index, rt\) => \{\s*return await rt\.session\(\{ at: \{ line: 3,/);
    expect(code).toMatch(/async \(tag, _index, rt\) => \{\s*return await rt\.session\(\{ at: \{ line: 5,/);
    expect(code).toMatch(/async \(tag, position, rt\) => \{/);
    // A `.prose` name `_index` or `_item` is another name: it never shadows a parameter.
    expect(code).toMatch(/^const _index\$ = /m);
    expect(code).not.toMatch(/\b(let|const) _(index|item)(: [\w | ]+)? = rt\./);
    const errors = await typecheck([{ path: join(tmpdir(), "unread-parameters.prose.ts"), code }], { noUnused: true });
    expect(errors.map((error) => `${error.line}: ${error.message}`)).toEqual([]);
  }, 60_000);
});
