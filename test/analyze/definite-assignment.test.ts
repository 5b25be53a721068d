/**
 * Definite assignment (2-analyze/definite-assignment.ts) as the value types see it: a name bound on
 * every path to each read is typed without `| null`; one path that may not bind it keeps `| null`.
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../src/phases/1-parse/index.js";
import { analyze, inferValueTypes, type SymbolInfo, type ValueType } from "../../src/phases/2-analyze/index.js";

const withNull = (type: ValueType): boolean =>
  type.kind === "null" || (type.kind === "union" && type.members.some((member) => member.kind === "null"));

/** For the binding `name` declared in the program's scope (or in block `block`'s): bound before every read, and typed with `null`. */
function typed(lines: readonly string[], name: string, block?: string): { bound: boolean; nullable: boolean } {
  const { ast, diagnostics } = parse(`${lines.join("\n")}\n`);
  expect(diagnostics).toEqual([]);
  const analysis = analyze(ast);
  expect(analysis.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  const owner = block === undefined ? analysis.program : analysis.blocks.get(block)!;
  const symbol: SymbolInfo = analysis.scopes.get(owner)!.symbols.get(name)!;
  expect(symbol).toBeDefined();
  const types = inferValueTypes(
    analysis,
    () => false,
    () => false,
  );
  return { bound: types.boundBeforeRead(symbol), nullable: withNull(types.symbol(symbol)) };
}

const definitely = { bound: true, nullable: false };
const maybe = { bound: false, nullable: true };

describe("definite assignment over choices", () => {
  it("a name every option binds is bound after the choice", () => {
    const program = [
      "choice **which way**:",
      '  option "words":',
      '    answer = session "Say it"',
      '  option "yes or no":',
      "    answer = **is it so**",
      'session "Use {answer}"',
    ];
    expect(typed(program, "answer")).toEqual(definitely);
  });

  it("one option that does not bind it keeps `null`", () => {
    const program = [
      "choice **which way**:",
      '  option "words":',
      '    answer = session "Say it"',
      '  option "nothing":',
      '    session "Shrug"',
      'session "Use {answer}"',
    ];
    expect(typed(program, "answer")).toEqual(maybe);
  });

  it("nested choices: bound when every inner option of the nesting option binds it", () => {
    const nested = (innerSecond: string) => [
      "choice **outer**:",
      '  option "inner":',
      "    choice **inner**:",
      '      option "a":',
      '        answer = session "A"',
      '      option "b":',
      `        ${innerSecond}`,
      '  option "direct":',
      '    answer = session "Direct"',
      "output answer = answer",
    ];
    expect(typed(nested('answer = session "B"'), "answer")).toEqual(definitely);
    expect(typed(nested('session "B, unbound"'), "answer")).toEqual(maybe);
  });

  it("an option that leaves (return, throw, break, continue) does not count against it", () => {
    const leaving = (jump: string) => [
      "choice **which way**:",
      '  option "words":',
      '    answer = session "Say it"',
      '  option "leave":',
      `    ${jump}`,
      'session "Use {answer}"',
    ];
    expect(typed(leaving("return"), "answer")).toEqual(definitely);
    expect(typed(leaving('throw "no way"'), "answer")).toEqual(definitely);
    const inLoop = (jump: string) => [
      "repeat 2:",
      "  choice **which way**:",
      '    option "words":',
      '      answer = session "Say it"',
      '    option "leave":',
      `      ${jump}`,
      '  session "Use {answer}"',
    ];
    expect(typed(inLoop("break"), "answer")).toEqual(definitely);
    expect(typed(inLoop("continue"), "answer")).toEqual(definitely);
  });

  it("an option whose jump is conditional still may not bind it", () => {
    const program = [
      "choice **which way**:",
      '  option "words":',
      '    answer = session "Say it"',
      '  option "maybe leave":',
      "    if **done**:",
      "      return",
      'session "Use {answer}"',
    ];
    expect(typed(program, "answer")).toEqual(maybe);
  });

  it("a read inside an option before that option binds it keeps `null`", () => {
    const program = [
      "choice **which way**:",
      '  option "words":',
      '    answer = session "Say it"',
      '  option "again":',
      '    session "Improve {answer}"',
      '    answer = session "Again"',
    ];
    expect(typed(program, "answer")).toEqual(maybe);
  });

  it("a program output bound in every option is bound at the program's end", () => {
    const program = [
      "choice **which way**:",
      '  option "one":',
      '    output verdict = session "One"',
      '  option "two":',
      '    output verdict = session "Two"',
    ];
    expect(typed(program, "verdict")).toEqual(definitely);
    expect(typed(program.slice(0, 3), "verdict")).toEqual(definitely);
    expect(typed([...program.slice(0, 3), '  option "none":', '    session "None"'], "verdict")).toEqual(maybe);
  });
});

describe("definite assignment over if, loops and judgments", () => {
  it("an `if` with an `else` binds what each clause binds; without one, nothing", () => {
    const clauses = ["if **a**:", '  plan = "a"', "elif **b**:", '  plan = "b"'];
    expect(typed([...clauses, "else:", '  plan = "c"', 'session "Go {plan}"'], "plan")).toEqual(definitely);
    expect(typed([...clauses, 'session "Go {plan}"'], "plan")).toEqual(maybe);
  });

  it("a loop may not run: what its body binds is not bound after it, but is inside it", () => {
    const body = [
      "  choice **which way**:",
      '    option "one":',
      '      step = session "One"',
      '    option "two":',
      '      step = session "Two"',
    ];
    expect(typed(["repeat 2:", ...body, '  session "Use {step}"'], "step")).toEqual(definitely);
    expect(typed(["repeat 2:", ...body, 'session "Use {step}"'], "step")).toEqual(maybe);
  });

  it("a judgment in a later option sees a program binding through the frame: no read of the variable", () => {
    const program = [
      "choice **which way**:",
      '  option "one":',
      '    answer = session "One"',
      '  option "two":',
      "    if **good enough**:",
      '      answer = "yes"',
      "    else:",
      '      answer = "no"',
      'session "Use {answer}"',
    ];
    expect(typed(program, "answer")).toEqual(definitely);
  });

  it("inside a block a judgment reads the block's bindings as variables: one not bound yet keeps `null`", () => {
    const block = (secondOption: readonly string[]) => [
      "block decide():",
      "  choice **which way**:",
      '    option "one":',
      '      answer = session "One"',
      '    option "two":',
      ...secondOption,
      "  output answer",
      "do decide()",
    ];
    expect(typed(block(['      answer = session "Two"']), "answer", "decide")).toEqual(definitely);
    expect(typed(block(["      answer = **is it so**"]), "answer", "decide")).toEqual(maybe);
  });

  it("a loop's condition is judged before the first iteration, before its body binds anything", () => {
    const program = [
      "block refine():",
      "  loop until **good** (max: 2):",
      "    choice **how**:",
      '      option "one":',
      '        draft = session "One"',
      '      option "two":',
      '        draft = session "Two"',
      '    session "Polish {draft}"',
      "do refine()",
    ];
    expect(typed(program, "draft", "refine")).toEqual(maybe);
  });
});

describe("definite assignment through a parallel's join", () => {
  /** `answer` bound in an `if` directly, in its `else` by a named branch of a `parallel` with `modifiers`. */
  const joined = (modifiers: string, read = 'session "Use {answer}"') => [
    "if **quick**:",
    '  answer = session "Direct"',
    "else:",
    `  parallel${modifiers}:`,
    '    answer = session "Drafted"',
    '    other = session "Other"',
    read,
  ];

  it("the join binds every named branch: bound after it, typed without `null`", () => {
    expect(typed(joined(""), "answer")).toEqual(definitely);
    // Bound by the join, but only in the `else`.
    expect(typed(joined("", 'session "Use {other}"'), "other")).toEqual(maybe);
  });

  it("whatever the join or failure policy: a race's loser and a failed branch are bound too (typed `Value`)", () => {
    for (const modifiers of [' ("first")', ' ("any", count: 1)', ' (on-fail: "continue")', ' (on-fail: "ignore")'])
      expect(typed(joined(modifiers), "answer"), modifiers).toEqual(definitely);
  });

  it("a read in a sibling branch comes before the join: not bound there", () => {
    const unbound = [
      "if **quick**:",
      '  answer = session "Direct"',
      "else:",
      "  parallel:",
      '    answer = session "Drafted"',
      '    other = session "Reads {answer}"',
      'session "Use {answer}"',
    ];
    expect(typed(unbound, "answer")).toEqual(maybe);
  });
});
