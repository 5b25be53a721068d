/**
 * The static cost bound of a program: worst-case calls by kind, symbolic where they depend on list
 * sizes or inputs, unbounded with the line that makes them so; the critical path; tokens.
 */
import { describe, expect, it } from "vitest";
import { evaluate, inputValues, totalCalls, type ProgramCost } from "../../runtime/cost/bound.js";
import { committedCost, raisedParts } from "../../src/project/bound-change.js";
import { costOfSource } from "../../src/compile.js";
import { formatCount, formatNumber } from "../../src/phases/2-analyze/cost/format.js";
import { Poly } from "../../src/phases/2-analyze/cost/poly.js";

function bound(...lines: string[]): ProgramCost {
  const result = costOfSource(`${lines.join("\n")}\n`, {
    resolveImport: () => ({ inputs: ["topic"], outputs: ["summary"], cost: helperCost }),
  });
  expect(result.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  return result.cost!;
}

function calls(cost: ProgramCost): Record<string, string> {
  return Object.fromEntries(Object.entries(cost.calls).map(([kind, count]) => [kind, formatCount(count)]));
}

const helperCost = bound(
  'input topic: "Topic"',
  "for part in topic:",
  '  session "Study {part}"',
  'output summary = session "Sum up"',
);

describe("the cost bound", () => {
  it("counts each session, judgment and choice once, retries and re-asks apart, on the critical path in sequence", () => {
    const cost = bound(
      'let a = session "One"',
      "  retry: 2",
      "if **a is good**:",
      '  session "Two"',
      "else:",
      '  session "Three"',
      '  session "Four"',
      "choice **which way**:",
      '  option "left":',
      '    session "Five"',
      '  option "right":',
      '    session "Six"',
    );
    // retry: the session's 2, and 2 re-asks each for the judgment and the choice (answers that cannot be read).
    expect(calls(cost)).toEqual({ session: "4", judgment: "1", choice: "1", extraction: "0", retry: "6" });
    // 1 session + 2 retries + 1 judgment + 2 re-asks + 2 (the worse branch) + 1 choice + 2 re-asks + 1.
    expect(formatCount(cost.criticalPath)).toBe("12");
    expect(cost.assumptions.reasks).toBe(2);
    expect(cost.unbounded).toEqual([]);
  });

  it("more re-asks than the bound assumed (RunOptions.reasks) add to its calls; fewer leave it as it is", () => {
    const cost = bound(
      'let a = session "One"',
      "if **a is good**:",
      '  session "Two"',
      "choice **which way**:",
      '  option "left":',
      '    session "Three"',
    );
    const none = () => undefined;
    // 3 sessions, a judgment and a choice, each question with 2 re-asks.
    expect(evaluate(totalCalls(cost), none)).toBe(9);
    expect(evaluate(totalCalls(cost, 2), none)).toBe(9);
    expect(evaluate(totalCalls(cost, 5), none)).toBe(9 + 2 * 3);
    expect(evaluate(totalCalls(cost, 0), none)).toBe(9);
  });

  it("adds parallel branches to the calls but only the longest to the critical path", () => {
    const cost = bound(
      "parallel:",
      '  a = session "A"',
      "  b = do:",
      '    session "B1"',
      '    session "B2"',
      'session "After"',
    );
    expect(formatCount(cost.calls.session)).toBe("4");
    expect(formatCount(cost.criticalPath)).toBe("3");
  });

  it("multiplies loops: by a number, a list's size, a numeric input", () => {
    const cost = bound(
      'input items: "Things to review"',
      'input rounds: "How many rounds"',
      "for item in items:",
      '  session "Review {item}"',
      '  session "Check {item}"',
      "repeat rounds:",
      '  session "Polish"',
      "loop until **it is done** (max: 3):",
      '  session "Improve"',
      'parallel for x in ["a", "b"]:',
      '  session "Look at {x}"',
    );
    expect(formatCount(cost.calls.session)).toBe("5 + rounds + 2·|items|");
    expect(formatCount(cost.calls.judgment)).toBe("3");
    // The list an input holds may need the model to read it: one extraction.
    expect(formatCount(cost.calls.extraction)).toBe("1");
    // The parallel for adds one body to the critical path; the 3 judgments and the extraction 2 re-asks each.
    expect(formatCount(cost.criticalPath)).toBe("16 + rounds + 2·|items|");
    expect(cost.symbols.map((symbol) => [symbol.name, symbol.kind, symbol.input])).toEqual([
      ["|items|", "items", "items"],
      ["rounds", "count", "rounds"],
    ]);
    const values = inputValues(cost, { items: "- a\n- b\n- c", rounds: "2" });
    expect(evaluate(cost.calls.session, values)).toBe(5 + 2 + 6);
  });

  it("pipelines: map and filter once per item (a filter's verdict may need reading), pmap on the critical path once", () => {
    const cost = bound(
      'let ideas = ["a", "b", "c"]',
      "let kept = ideas | filter:",
      '  session "Keep {item}?"',
      "let pitched = kept | pmap:",
      '  session "Pitch {item}"',
    );
    expect(calls(cost)).toEqual({ session: "6", judgment: "0", choice: "0", extraction: "3", retry: "6" });
    expect(formatCount(cost.criticalPath)).toBe("13");
  });

  it("reports a loop without max, and a recursion without max_depth, as unbounded with their lines", () => {
    const cost = bound(
      "loop until **done**:",
      '  session "Work"',
      "block dig(n):",
      '  session "Dig"',
      "  do dig(n)",
      "do dig(1)",
    );
    expect(cost.calls.session).toBe("unbounded");
    expect(cost.unbounded).toEqual([
      { line: 1, column: 1, reason: "loop without (max: N)" },
      { line: 5, column: 3, reason: "recursion through block dig without (max_depth: N)" },
    ]);
  });

  it("unrolls a recursion to its max_depth, and a branch that recurses twice to the tree", () => {
    const linear = bound("block dig(n) (max_depth: 4):", '  session "Dig"', "  do dig(n)", "do dig(1)");
    expect(formatCount(linear.calls.session)).toBe("4");
    const tree = bound(
      "block split(n) (max_depth: 3):",
      '  session "Split"',
      "  do split(n)",
      "  do split(n)",
      "do split(1)",
    );
    expect(formatCount(tree.calls.session)).toBe("7");
    expect(tree.unbounded).toEqual([]);
  });

  it("unrolls a recursion through nested ifs, and a deep max_depth, without overflowing the stack", () => {
    // The call under eight ifs at the default depth, and 5,000 levels, each took a stack frame per level.
    const ifs = Array.from({ length: 8 }, (_, level) => `${"  ".repeat(level + 1)}if **go on**:`);
    const nested = bound("block dig(n) (max_depth: 100):", ...ifs, `${"  ".repeat(9)}do dig(n)`, "do dig(1)");
    expect(formatCount(nested.calls.judgment)).toBe("800");
    const deep = bound("block dig(n) (max_depth: 5000):", '  session "Dig"', "  do dig(n)", "do dig(1)");
    expect(formatCount(deep.calls.session)).toBe("5,000");
    expect(formatCount(deep.criticalPath)).toBe("5,000");
  });

  it("unrolls a recursion through two blocks to each block's own max_depth", () => {
    const cost = bound(
      "block ping(n) (max_depth: 3000):",
      '  session "Ping"',
      "  do pong(n)",
      "block pong(n):",
      '  session "Pong"',
      "  do ping(n)",
      "do ping(1)",
    );
    // pong's calls stop at the default depth (100): ping runs at depths 1, 3, …, 99 and 101.
    expect(calls(cost)).toMatchObject({ session: "101" });
  });

  it("calls a recursion deeper than it unrolls unbounded, naming the limit", () => {
    const cost = bound("block dig(n) (max_depth: 1000000):", '  session "Dig"', "  do dig(n)", "do dig(1)");
    expect(cost.calls.session).toBe("unbounded");
    expect(cost.unbounded).toEqual([
      {
        line: 3,
        column: 3,
        reason: "recursion through block dig unrolls past 10,000 block calls, too many to estimate",
      },
    ]);
  });

  it("a loop with no model calls in it costs nothing, bounded or not", () => {
    expect(bound("let n = 0", "loop:", "  n = n + 1").unbounded).toEqual([]);
  });

  it("reading a text's fields may need the model; a record written in the program does not", () => {
    const cost = bound(
      'let r = session "Describe"',
      "output a = r.title",
      'let fixed = { title: "x" }',
      "output b = fixed.title",
    );
    expect(formatCount(cost.calls.extraction)).toBe("1");
  });

  it("includes a called program's bound, its inputs replaced by the arguments", () => {
    const cost = bound('use "./helper" as helper', 'let r = helper(topic: ["x", "y", "z"])');
    expect(calls(helperCost).session).toBe("1 + |topic|");
    expect(formatCount(cost.calls.session)).toBe("4");
  });

  it("estimates tokens per model from the prompts, with the stated assumptions", () => {
    const cost = bound(
      "agent writer:",
      "  model: opus",
      '  prompt: "You write."',
      "session: writer",
      '  prompt: "Write"',
      'session "Check"',
    );
    expect(Object.keys(cost.tokens)).toEqual(["opus", "sonnet"]);
    expect(cost.tokens["opus"]!.output).toBe(1000);
    expect(cost.assumptions).toEqual({ replyTokens: 1000, valueTokens: 1000, reasks: 2 });
  });

  it("counts an agent with mcp: with an allowance for its MCP tools and one result at the output cap", () => {
    const agent = (rules: string) => [
      "agent keeper:",
      "  permissions:",
      `    ${rules}`,
      "session: keeper",
      '  prompt: "Go"',
    ];
    const input = (cost: ProgramCost): number => Number(formatCount(cost.tokens["sonnet"]!.input).replace(/,/g, ""));
    const without = input(bound(...agent("read: deny")));
    expect(input(bound(...agent('mcp: ["memory/*"]'))) - without).toBe(2000 + 32768);
    expect(input(bound(...agent("mcp: []")))).toBe(without);
    expect(input(bound(...agent("mcp: prompt"))) - without).toBe(2000 + 32768);
    expect(input(bound(...agent('mcp: [prompt: "memory/*"]'))) - without).toBe(2000 + 32768);
  });

  it("counts skills: each skill's listed line at the format's limits and read_skill's definition", () => {
    const input = (cost: ProgramCost): number => Number(formatCount(cost.tokens["sonnet"]!.input).replace(/,/g, ""));
    const session = (skills: string[]): ProgramCost =>
      bound("agent reviewer:", ...skills.map((line) => `  ${line}`), '  prompt: "Review"', "session: reviewer");
    const without = input(session([]));
    // 290 tokens a skill (a 64-character name twice, a 1,024-character description), 250 for read_skill.
    expect(input(session(['skills: ["code-review"]'])) - without).toBe(250 + 290);
    expect(input(session(['skills: ["code-review", "style"]'])) - without).toBe(250 + 2 * 290);
    expect(input(session(["skills: []"]))).toBe(without);
  });
});

describe("the bound's algebra", () => {
  it("keeps a canonical form: like terms merge, a dominated maximum drops, a common part comes out", () => {
    const items = Poly.symbol("|items|");
    expect(formatCount(Poly.max([Poly.constant(2).plus(items), Poly.constant(1).plus(items)]).toCount())).toBe(
      "2 + |items|",
    );
    expect(formatCount(Poly.max([Poly.constant(3).plus(items), Poly.symbol("n").plus(items)]).toCount())).toBe(
      "|items| + max(3, n)",
    );
    expect(formatCount(items.plus(items).times(Poly.symbol("n")).toCount())).toBe("2·n·|items|");
    expect(Poly.infinite.times(Poly.zero).isZero).toBe(true);
    const count = Poly.max([Poly.constant(3), Poly.symbol("n")])
      .times(items)
      .plus(Poly.constant(1))
      .toCount();
    expect(Poly.fromCount(count).key).toBe(Poly.fromCount(JSON.parse(JSON.stringify(count))).key);
    expect(evaluate(count, (symbol) => ({ "|items|": 2, n: 5 })[symbol])).toBe(11);
    expect(evaluate(count, () => undefined)).toBeUndefined();
    expect(evaluate({ sum: [1, "unbounded"] }, () => undefined)).toBe(Infinity);
  });

  it("groups numbers as en-US does, without loading ICU's locale data (start-up, issue 45)", () => {
    const values = [
      0,
      -0,
      0.4,
      -0.4,
      0.5,
      -0.5,
      2.5,
      -2.5,
      999.5,
      1234,
      12345.4,
      -1234567.5,
      2 ** 53,
      1e21,
      NaN,
      Infinity,
    ];
    for (const value of values)
      expect(formatNumber(value)).toBe(value.toLocaleString("en-US", { maximumFractionDigits: 0 }));
    expect(formatNumber(1234567.5)).toBe("1,234,568");
  });
});

describe("a committed module's bound", () => {
  it("is read back from the metadata and compared: what rose is named", () => {
    const module = `const program = defineProgram({\n  text: \`\n  cost: { not: this }\n\`,\n  cost: {\n    calls: { session: 2, judgment: 0, choice: 0, extraction: 0, retry: 0 },\n    criticalPath: 2,\n    tokens: { sonnet: { input: 10, output: 5 } },\n    symbols: [],\n    unbounded: [],\n    assumptions: { replyTokens: 1000, valueTokens: 1000 },\n  },\n});\n`;
    const before = committedCost(module)!;
    expect(before.calls.session).toBe(2);
    const after = bound('session "A"', 'session "B"', 'session "C"');
    expect(raisedParts(before, after)).toEqual(["sessions 2 → 3", "critical path 2 → 3"]);
    expect(raisedParts(after, before)).toEqual([]);
  });
});
