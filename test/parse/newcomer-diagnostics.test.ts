/**
 * Diagnostics a newcomer met in the first hour (issue 29): each says what is wrong where it is
 * wrong, once, and how to fix it. Every diagnostic of the program is asserted, so a second,
 * confusing one fails the test.
 */
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { lines } from "../support/lines.js";

async function reported(source: string): Promise<string[]> {
  const { diagnostics } = await compile(source, "newcomer.prose");
  return diagnostics.map(
    (diagnostic) =>
      `${diagnostic.range.start.line}:${diagnostic.range.start.column} ${diagnostic.code} ${diagnostic.message}${diagnostic.hint === undefined ? "" : ` | ${diagnostic.hint}`}`,
  );
}

describe("diagnostics a newcomer met", () => {
  it("a property under a session or an agent with its `:` missing asks for the `:`, not for `return`", async () => {
    const hint = "lines indented under an agent or a session are its properties: `name: value`";
    expect(await reported(lines('let x = session "Rate it"', "  returns string", "output x"))).toEqual([
      `2:11 E004 expected \`:\` after \`returns\`, found \`string\` | ${hint}`,
    ]);
    expect(
      await reported(lines("agent writer:", "  model sonnet", "output a = session: writer", '  prompt: "Go"')),
    ).toEqual([`2:9 E004 expected \`:\` after \`model\`, found \`sonnet\` | ${hint}`]);
    expect(await reported(lines('let n = "notes"', 'session "Read"', "  context n"))).toEqual([
      `3:11 E004 expected \`:\` after \`context\`, found \`n\` | ${hint}`,
    ]);
  });

  it("a keyword misspelt inside a header (`loop untill`, `for x inn`) asks for the keyword meant", async () => {
    expect(await reported(lines("loop untill **done** (max: 3):", '  session "Work"'))).toEqual([
      "1:6 E004 unexpected `untill`: expected end of line, `(`, `:`, `as`, `until` or `while` | did you mean `until`?",
    ]);
    expect(await reported(lines("for x inn [1, 2]:", '  session "Item {x}"'))).toEqual([
      "1:7 E004 unexpected `inn`: expected `,` or `in` | did you mean `in`?",
    ]);
    // A word far from every keyword expected there gets no guess.
    expect(await reported(lines("loop forever **done**:", '  session "Work"'))).toEqual([
      "1:6 E004 unexpected `forever`: expected end of line, `(`, `:`, `as`, `until` or `while`",
    ]);
  });

  it("a line over-indented by a space is reported at that line, once", async () => {
    expect(
      await reported(
        lines(
          "agent writer:",
          "  model: sonnet",
          "if **the draft is ready**:",
          '     session "Publish"',
          '    session "Announce"',
          '    session "Archive"',
          'session "Done"',
        ),
      ),
    ).toEqual([
      "4:1 E005 this line is indented by 5 spaces, 1 more than the line after it in its block | indent it by 4 spaces, like the rest of the block",
    ]);
    // Inside a block's body too; and a dedent between two widths that is not such a line keeps its message.
    expect(await reported(lines("block b():", "  if **x**:", '     session "a"', '    session "b"', "do b()"))).toEqual(
      [
        "3:1 E005 this line is indented by 5 spaces, 1 more than the line after it in its block | indent it by 4 spaces, like the rest of the block",
      ],
    );
    expect(await reported(lines("if **x**:", '    session "a"', '  session "b"'))).toEqual([
      "3:1 E005 this line is indented by 2 spaces, which matches no enclosing block | line it up with the block it belongs to",
    ]);
  });

  it("`catch as err` without its `:` is that error alone, not also `try:` without `catch:`", async () => {
    const missingColon = "E004 expected `:` after `catch` | a line that opens an indented block ends with `:`";
    expect(await reported(lines("try:", '  session "a"', "catch as err", '  session "b"'))).toEqual([
      `3:13 ${missingColon}`,
    ]);
    expect(
      await reported(lines("block b():", "  try:", '    session "a"', "  catch as err", '    session "b"', "do b()")),
    ).toEqual([`4:15 ${missingColon}`]);
    // A `try:` that really has neither is still told so.
    expect(await reported(lines("try:", '  session "a"', 'session "b"'))).toEqual([
      "1:1 P013 `try:` without `catch:` or `finally:` does nothing | add `catch:` to handle the error, or remove `try:`",
    ]);
  });

  it("a misspelt keyword where a value stands gets a did-you-mean, in a binding and in a parallel branch", async () => {
    const hint = "write `session`: a value is a name, a literal, or begins with a keyword such as `session` or `do`";
    expect(
      await reported(lines('let r = sesion "Write"', "parallel:", '  a = sesion "A"', '  b = session "B"')),
    ).toEqual([
      `1:9 E004 \`sesion\` is not a keyword (did you mean \`session\`?) | ${hint}`,
      `3:7 E004 \`sesion\` is not a keyword (did you mean \`session\`?) | ${hint}`,
    ]);
    expect(await reported(lines("agent captain:", "  persist: true", "let x = resme: captain"))).toEqual([
      "3:9 E004 `resme` is not a keyword (did you mean `resume`?) | write `resume`: a value is a name, a literal, or begins with a keyword such as `session` or `do`",
    ]);
    // A word nothing is close to keeps the plain message.
    expect(await reported(lines('let x = foo "a"'))).toEqual([
      '1:13 E004 unexpected `"a"`: expected end of line or `(`',
    ]);
  });

  it("`loop until **done** max 3:` says to write `(max: 3)`", async () => {
    expect(await reported(lines("loop until **done** max 3:", '  session "a"'))).toEqual([
      "1:21 E004 `max` is a modifier: it goes in parentheses after the condition | write `(max: 3)`, as in `loop until **done** (max: 3):`",
    ]);
  });

  it("`{reprot}` one edit from `report` is an error; `{timestamp}` with `timeframe` bound stays a warning", async () => {
    expect(
      await reported(
        lines(
          'let report = session "Write"',
          'let timeframe = "last week"',
          'session "Send {reprot} with a {timestamp} header"',
        ),
      ),
    ).toEqual([
      "3:15 P039 `{reprot}`: `reprot` is one edit from `report`, so this looks like a typo, not text for the model | write `{report}` to interpolate `report`, or \\{reprot} to keep the braces as text",
      "3:31 P002 `{timestamp}` names no binding, so it stays literal text (did you mean `timeframe`?) | write `{timeframe}` to interpolate `timeframe`, or write \\{ to mark the brace as text",
    ]);
  });

  it("`let x = if` and `let x = choice` say the branching statement binds in its branches", async () => {
    expect(
      await reported(
        lines('input plan: "The plan"', "let verdict = if **the plan is sound**:", '  session "Approve it"'),
      ),
    ).toEqual([
      '2:15 E004 `if` is a statement, not a value: it cannot be assigned | start the line with `if` and bind the name in each branch: `let verdict = session "..."` under `if` and under `else`',
    ]);
    expect(await reported(lines("let pick = choice **which one**:", '  option "A":', '    session "Take A"'))).toEqual([
      '1:12 E004 `choice` is a statement, not a value: it cannot be assigned | start the line with `choice` and bind the name in each option: `let pick = session "..."` under each `option`',
    ]);
  });
});
