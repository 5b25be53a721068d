import { describe, expect, it } from "vitest";
import { problems } from "../support/parse-helpers.js";

describe("syntax error messages", () => {
  it("names the construct whose header lacks its `:`", () => {
    expect(problems('if x > 1\n  session "a"\n')).toEqual(["1:9 E004 expected `:` after the `if` condition"]);
    expect(problems('loop until **done** (max: 3)\n  session "a"\n')).toEqual([
      "1:29 E004 expected `:` after the `loop` header",
    ]);
    expect(problems('let r = parallel for x in xs\n  session "a"\n')).toEqual([
      "1:29 E004 expected `:` after the `for` header",
    ]);
    expect(problems("agent writer\n  model: opus\n")).toEqual(["1:13 E004 expected `:` after the agent name"]);
    expect(problems('try\n  session "a"\ncatch:\n  throw\n')).toEqual(["1:4 E004 expected `:` after `try`"]);
    expect(problems('parallel\n  session "a"\n')).toEqual(["1:9 E004 expected `:` after `parallel`"]);
  });

  it("a name Object.prototype has opens no block: no `function toString() { [native code] }` in a message", () => {
    for (const name of ["toString", "constructor", "valueOf", "__proto__"]) {
      const [first, ...rest] = problems(`let x = ${name}\n  session "a"\n`);
      expect(rest, name).toEqual([]);
      expect(first, name).not.toContain("native code");
      expect(first, name).not.toContain("expected `:` after");
    }
    // A header keyword before it still names the construct.
    expect(problems('for x in toString\n  session "a"\n')).toEqual(["1:18 E004 expected `:` after the `for` header"]);
  });

  it("reports a `**` condition left open on its line with E001, and parses on", () => {
    expect(problems('if **is it done:\n  session "a"\nsession "b"\n')).toEqual([
      "1:4 E001 unterminated `**` condition",
      "1:17 E004 expected `:` after the `if` condition",
    ]);
    expect(problems('let x = **unterminated\nsession "b"\n')).toEqual(["1:9 E001 unterminated `**` condition"]);
  });

  it("says that a pipeline stage's body goes on the lines below it", () => {
    expect(problems('items | map: session "Process {item}"\n')).toEqual([
      "1:14 E004 the body of a `| map:` stage goes on the lines below it",
    ]);
    expect(problems('let x = items | reduce(acc, item): session "add"\n')).toEqual([
      "1:36 E004 the body of a `| reduce:` stage goes on the lines below it",
    ]);
  });

  it("says where a session's properties go", () => {
    expect(problems('session "Synthesize":\n  context: a\n')).toEqual([
      "1:21 E004 unexpected `:` after a session's prompt",
    ]);
    expect(problems('session "Flaky" (retry: 3)\n')).toEqual(["1:17 E004 a session takes no modifiers in parentheses"]);
    expect(problems("session synthesizer:\n  model: opus\n")).toEqual([
      "1:21 E004 expected an agent name after `session synthesizer:`",
    ]);
  });

  it("counts a one-space indentation in the singular", () => {
    expect(problems('if **x**:\n  session "a"\n session "b"\n')).toEqual([
      "3:1 E005 this line is indented by 1 space, which matches no enclosing block",
    ]);
  });

  it("says when a property line has no agent or session to belong to", () => {
    expect(problems('session "a"\ncontext: item\n')).toEqual([
      "2:1 E004 `context:` is a property, but no agent or session above it owns it",
    ]);
  });

  it("suggests the keyword a misspelled statement meant", () => {
    expect(problems("agnt analyst:\n  model: opus\n")).toEqual([
      "1:1 E004 unknown statement `agnt` (did you mean `agent`?)",
    ]);
    expect(problems("sesion: researcher\n")).toEqual([
      "1:1 E004 unknown statement `sesion:` (did you mean `session`?)",
    ]);
    expect(problems("Feature Factory Complete!\n")).toEqual(["1:1 E004 unknown statement `Feature`"]);
    expect(problems('sesson "Final step"\n')).toEqual([
      "1:1 E004 unknown statement `sesson` (did you mean `session`?)",
    ]);
  });

  it("quotes the first line of an unexpected string", () => {
    expect(problems('let x = "a" """two\nlines"""\n')).toEqual([
      '1:13 E004 unexpected `"""two...`: expected end of line',
    ]);
  });

  it("reports a `***` condition never closed", () => {
    expect(problems("loop until ***\n  done\n")[0]).toBe("1:12 E001 unterminated `***` condition");
  });
});
