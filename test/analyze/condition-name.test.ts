/**
 * A newcomer's `loop until done` or `if ready:` where a model should judge the condition: the name
 * is not bound, and P001's help says both ways out, `**done**` first, since that is what such a line
 * usually meant. A name anywhere else, or one close to a bound name, keeps the usual help.
 */
import { describe, expect, it } from "vitest";
import { checkSource } from "../../src/pipeline.js";

function undefinedNames(source: string) {
  return checkSource(source)
    .diagnostics.filter((diagnostic) => diagnostic.code === "P001")
    .map((diagnostic) => ({
      at: `${diagnostic.range.start.line}:${diagnostic.range.start.column}`,
      hint: diagnostic.hint,
    }));
}

describe("an unbound name as a whole condition", () => {
  it("in `loop until` and `loop while`, suggests a judged condition", () => {
    for (const keyword of ["until", "while"])
      expect(undefinedNames(`loop ${keyword} done (max: 3):\n  session "c"\n`)).toEqual([
        {
          at: `1:${keyword.length + 7}`,
          hint: "a condition a model judges goes between `**`: `**done**`; a name must be bound first: `let done = ...`",
        },
      ]);
  });

  it("in `if` and `elif`, suggests a judged condition", () => {
    const hints = undefinedNames('if ready:\n  session "a"\nelif approved:\n  session "b"\n').map(
      (found) => found.hint,
    );
    expect(hints).toEqual([
      "a condition a model judges goes between `**`: `**ready**`; a name must be bound first: `let ready = ...`",
      "a condition a model judges goes between `**`: `**approved**`; a name must be bound first: `let approved = ...`",
    ]);
  });

  it("elsewhere, or close to a bound name, keeps the usual help", () => {
    expect(undefinedNames('session "a"\n  context: done\n')).toEqual([
      { at: "2:12", hint: "bind it first: `let done = ...`" },
    ]);
    // Part of a condition, not the whole of it: not a judgment written without its stars.
    expect(undefinedNames('if done and ready:\n  session "a"\n').map((found) => found.hint)).toEqual([
      "bind it first: `let done = ...`",
      "bind it first: `let ready = ...`",
    ]);
    expect(undefinedNames('let ready = session "r"\nif redy:\n  session "a"\n')).toEqual([
      { at: "2:4", hint: undefined },
    ]);
  });
});
