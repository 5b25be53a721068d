import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { compile } from "../../src/compile.js";
import { checkSource } from "../../src/pipeline.js";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

/** `line:column CODE message` of every diagnostic `check` reports. */
function checked(source: string): string[] {
  return checkSource(source).diagnostics.map(
    (d) => `${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`,
  );
}

/** The program: analysis problems above a statement that does not parse. */
const brokenLate = `agent writer:
  model: gpt-5
  prompt: "You write."

agent writer:
  model: sonnet

agent editor:
  model: opus
  prompt: "You edit."
  prompt: "Twice."

let draft = session: writer
  prompt: "Draft it"

if **the draft is long**:
  session "Shorten {draft}"

frobnicate the draft now
session "Publish {draft}"
`;

describe("error recovery, like tsc", () => {
  it("reports the syntax error and still analyses the rest of the program", () => {
    expect(checked(brokenLate)).toEqual([
      "2:10 E008 unknown model `gpt-5`",
      "5:7 E006 agent `writer` is already defined on line 1",
      "11:3 E009 property `prompt` is already set on line 10",
      "19:1 E004 unknown statement `frobnicate`",
    ]);
  });

  it("skips a broken statement at any depth and parses the rest of its block", () => {
    const source = [
      "block review(doc):",
      '  let notes = session "Review {doc}"',
      '  let summary = session "Summarize" +* 3',
      "  if **notes are long**:",
      '    session "Use {notes}" %%',
      "  else:",
      "    session: ghost",
      '  output result = session "Final {summary} {notes}"',
      "",
      'do review("x")',
      "parallel:",
      '  a = session "A"',
      '  b = sesion "B"',
      '  c = session "C {a}"',
      "do reviw()",
      "",
    ].join("\n");
    expect(checked(source)).toEqual([
      "3:38 E004 unexpected `*`: expected a name, `(`, `-`, `[`, `do` or `not`",
      "5:27 E004 unexpected character `%`",
      "7:14 E007 agent `ghost` is not defined",
      "13:7 E004 `sesion` is not a keyword (did you mean `session`?)",
      "15:4 P009 block `reviw` is not defined (did you mean `review`?)",
    ]);
    const block = checkSource(source).ast.body[0]!;
    expect(block.kind === "Block" && block.body.map((statement) => statement.kind)).toEqual([
      "Binding",
      "Recovered",
      "If",
      "Output",
    ]);
  });

  it("counts the names a skipped statement would have bound as bound: no cascades", () => {
    const source = [
      'let draft = session "Draft" +* 2',
      "agent critic:",
      "  model opus",
      "block polish(text):",
      '  session "Polish {text}" ]',
      'use "./lib" as lib oops',
      "if **ready**:",
      '  let verdict = session "Judge {draft}" @',
      'session "Publish {draft} and {verdict}"',
      "  context: critic",
      "do polish(draft)",
      'let r = lib(topic: "x")',
      "let { first, second } = 3 3",
      'session "{first} {second} {undefinedName}"',
      "",
    ].join("\n");
    const codes = checkSource(source).diagnostics.map((d) => `${d.range.start.line} ${d.code}`);
    // One syntax error per broken statement, and the one name nothing would have bound.
    expect(codes).toEqual(["1 E004", "3 E004", "5 E004", "6 E004", "8 E004", "13 E004", "14 P002"]);
  });

  it("skips a broken `elif` with its `if`, not as a dangling `else` below it", () => {
    const source = 'if **a**:\n  session "a"\nelif ** b:\n  session "b"\nelse:\n  session "c"\nsession "d" @\n';
    expect(checked(source).map((line) => line.split(" ").slice(0, 2).join(" "))).toEqual([
      "3:6 E001",
      "3:11 E004",
      "7:13 E004",
    ]);
  });

  it("recovers inside a parallel branch, a loop and a try, and keeps their other statements", () => {
    const source = [
      "loop until **done** (max: 3):",
      '  let step = session "Step" )',
      '  session "Next"',
      "try:",
      '  session "Risky" )',
      '  session "Fine"',
      "catch as err:",
      '  session "Handle {err}"',
      "",
    ].join("\n");
    const result = checkSource(source);
    expect(result.diagnostics.map((d) => `${d.range.start.line} ${d.code}`)).toEqual(["2 E004", "5 E004"]);
    expect(result.complete).toBe(false);
    const loop = result.ast.body[0]!;
    expect(
      loop.kind === "ExpressionStatement" && loop.expression.kind === "Loop"
        ? loop.expression.body.map((statement) => statement.kind)
        : [],
    ).toEqual(["Recovered", "ExpressionStatement"]);
  });

  it("never lowers a program with syntax errors: compile returns no code, `prosec build` writes nothing", async () => {
    expect((await compile(brokenLate, "broken.prose")).code).toBeUndefined();
    const folder = temporaryFolder("prosec-recovery-");
    writeFileSync(join(folder, "broken.prose"), brokenLate);
    const result = prosec(["build", "broken.prose"], folder);
    expect(result.status).toBe(EXIT.failed);
    expect(result.stderr + result.stdout).toContain("unknown statement `frobnicate`");
    expect(result.stderr + result.stdout).toContain("agent `writer` is already defined on line 1");
    expect(readdirSync(folder)).toEqual(["broken.prose"]);
    expect(existsSync(join(folder, "broken.prose.ts"))).toBe(false);
  });
});
