/**
 * Typed inputs and outputs (2-analyze/value-types.ts): what the program knows is in `Inputs`,
 * `Outputs` and the bindings' declarations, and the modules still type-check in strict mode.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../src/project/build.js";
import { temporaryFolder } from "../support/temp.js";

const programs: Record<string, string> = {
  "kinds.prose": [
    'input topic: "The topic"',
    'output notes = session "Notes on {topic}"',
    "output ready = **the notes are complete**",
    'output tags = ["a", "b"]',
    'output settings = { depth: 2, strict: true, label: "x {topic}" }',
    'output mixed = [1, "two"]',
    'output nested = [["a"], ["b", "c"]]',
    "input depth: 3",
    'input tones: ["warm", "plain"]',
    "let count = 0",
    "for part in notes:",
    "  count = count + 1",
    "output counted = count",
    "output first = do part-of(notes)",
    "block part-of(words):",
    "  output words",
    'input later: "Asked mid-program"',
    "",
  ].join("\n"),
  "choice.prose": [
    "choice **which way**:",
    '  option "words":',
    '    answer = session "Say it"',
    '  option "yes or no":',
    "    answer = **is it so**",
    "output answer = answer",
    "output echoed = answer",
    "parallel:",
    '  left = session "Left"',
    '  right = session "Right"',
    "output leftward = left",
    'parallel (on-fail: "continue"):',
    '  risky = session "Risky"',
    "output risky = risky",
    "",
  ].join("\n"),
  "partial.prose": [
    "choice **which way**:",
    '  option "words":',
    '    answer = session "Say it"',
    '  option "none":',
    '    session "Shrug"',
    "output answer = answer",
    "if **formal**:",
    '  tone = "formal"',
    "elif **warm**:",
    '  tone = "warm"',
    "else:",
    "  tone = 3",
    "output tone = tone",
    "choice **go on**:",
    '  option "yes":',
    '    next = session "Next"',
    '  option "stop":',
    '    throw "stopped"',
    "output next = next",
    "",
  ].join("\n"),
  "caller.prose": [
    'use "./kinds.prose" as kinds',
    'let result = kinds(topic: ["not", "text"])',
    "output result = result",
    "",
  ].join("\n"),
  // No `output`: a call gives the final result, here the text of the session that ran.
  "outputless.prose": [
    'input mode: "a or b"',
    'if mode == "a":',
    '  session "Helper A"',
    "else:",
    '  session "Helper B"',
    "",
  ].join("\n"),
  "outputless-caller.prose": [
    'use "./outputless.prose" as helper',
    'let h = helper(mode: "a")',
    "output h = h",
    'output upper = "{h}!"',
    "",
  ].join("\n"),
};

let folder: string;
let modules: Record<string, string>;
let typeErrors: readonly unknown[];
beforeAll(async () => {
  folder = temporaryFolder("prosec-types-");
  for (const [name, source] of Object.entries(programs)) writeFileSync(join(folder, name), source);
  const result = await build(
    Object.keys(programs).map((name) => join(folder, name)),
    { typecheck: true },
  );
  typeErrors = result.typeErrors;
  modules = Object.fromEntries(
    Object.keys(programs).map((name) => [name, readFileSync(join(folder, `${name}.ts`), "utf8")]),
  );
}, 60_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The type `Outputs` gives an output, from the declaration with its whitespace collapsed. */
const typeOf = (module: string, name: string): string | undefined => {
  const declaration = module.slice(module.indexOf("export type Outputs = "), module.indexOf("\n\nconst program"));
  const outputs = declaration.replace(/\s+/g, " ").replace(/;? \};$/, ";");
  return new RegExp(`readonly ${name}: (\\{[^}]*\\}|[^;{]+);`).exec(outputs)?.[1];
};

describe("typed inputs and outputs", () => {
  it("type-check in strict mode, a call passing a list to a text input included", () => {
    expect(typeErrors).toEqual([]);
  });

  it("a session is text, a judgment a boolean, literals their shape", () => {
    const kinds = modules["kinds.prose"]!;
    expect(typeOf(kinds, "notes")).toBe("string");
    expect(typeOf(kinds, "ready")).toBe("boolean");
    expect(typeOf(kinds, "tags")).toBe("readonly string[]");
    expect(typeOf(kinds, "settings")).toBe(
      "{ readonly depth: number; readonly strict: boolean; readonly label: string }",
    );
    expect(typeOf(kinds, "mixed")).toBe("readonly (number | string)[]");
    expect(typeOf(kinds, "nested")).toBe("readonly (readonly string[])[]");
  });

  it("arithmetic and block results are Values; an input is text (a default's type), a mid-program one optional", () => {
    const kinds = modules["kinds.prose"]!;
    expect(typeOf(kinds, "counted")).toBe("Value");
    expect(typeOf(kinds, "first")).toBe("Value");
    expect(kinds).toContain("readonly topic: string;");
    expect(kinds).toContain("readonly later?: string");
    // An input with a default has the default's type, and may be left out.
    expect(kinds).toContain("readonly depth?: number;");
    expect(kinds).toContain("readonly tones?: readonly string[];");
  });

  it("a name bound in every option of a choice has their union, declared without a value", () => {
    const choice = modules["choice.prose"]!;
    expect(typeOf(choice, "answer")).toBe("string | boolean");
    expect(typeOf(choice, "echoed")).toBe("string | boolean");
    expect(choice).toContain("let answer: string | boolean;");
  });

  it("a name one option may leave unbound includes null; an `if` with an `else`, or an option that throws, does not", () => {
    const partial = modules["partial.prose"]!;
    expect(typeOf(partial, "answer")).toBe("string | null");
    expect(partial).toContain("let answer: string | null = null;");
    expect(typeOf(partial, "tone")).toBe("string | number");
    expect(typeOf(partial, "next")).toBe("string");
  });

  it("a parallel branch is what it returns; under continue a Value (an error record)", () => {
    const choice = modules["choice.prose"]!;
    expect(choice).toContain("const [left, right] = await Promise.all(");
    expect(typeOf(choice, "leftward")).toBe("string");
    expect(typeOf(choice, "risky")).toBe("Value");
  });

  it("a program call's result is the called program's Outputs", () => {
    expect(typeOf(modules["caller.prose"]!, "result")).toBe("kinds.Outputs");
  });

  it("a call of a program that declares no output gives its final result: a Value, not its empty Outputs", () => {
    expect(modules["outputless.prose"]).toContain("export type Outputs = Record<string, never>;");
    expect(typeOf(modules["outputless-caller.prose"]!, "h")).toBe("Value");
    expect(modules["outputless-caller.prose"]).not.toContain("helper.Outputs");
  });
});
