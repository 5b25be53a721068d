import { describe, expect, it } from "vitest";
import type { ExpressionStatement, ParallelExpression } from "../../src/ast.js";
import { lowerSource } from "../../src/compile.js";
import { graphOfSource } from "../../src/graph/index.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { analyze } from "../../src/phases/2-analyze/index.js";

const branches = '  a = session "one"\n  b = session "two"\n  c = session "three"\n';

function planOf(head: string) {
  const { ast } = parse(`${head}\n${branches}`);
  const analysis = analyze(ast);
  const parallel = (ast.body[0] as ExpressionStatement).expression as ParallelExpression;
  return { plan: analysis.parallelPlans.get(parallel), diagnostics: analysis.diagnostics.map((d) => d.code) };
}

describe("a parallel's plan: its modifiers read once, by analysis", () => {
  it.each([
    ["parallel:", { join: "all", onFail: "fail-fast" }],
    ['parallel ("first"):', { join: "first", onFail: "fail-fast" }],
    ['parallel ("any", count: 2):', { join: "any", count: 2, onFail: "fail-fast" }],
    ['parallel ("any"):', { join: "any", onFail: "fail-fast" }],
    ['parallel (on-fail: "continue"):', { join: "all", onFail: "continue" }],
    // A failure policy may be written bare; the last of two modifiers of a kind wins.
    [
      'parallel ("any", count: 2, on-fail: ignore, on-fail: "continue"):',
      { join: "any", count: 2, onFail: "continue" },
    ],
  ])("%s", (head, plan) => {
    expect(planOf(head)).toEqual({ plan, diagnostics: [] });
  });

  it("reports the words it does not know, as the plan reads them (a join word is quoted): P003, P005", () => {
    expect(planOf('parallel ("every"):').diagnostics).toEqual(["P003"]);
    expect(planOf("parallel (first):").diagnostics).toEqual(["P003"]);
    expect(planOf('parallel (on-fail: "retry"):').diagnostics).toEqual(["P003"]);
    expect(planOf('parallel ("first", count: 2):').diagnostics).toEqual(["P005"]);
  });

  it("quotes what was written: a bare join word is told to take its quotes, never called `this`", () => {
    const messages = (head: string) =>
      analyze(parse(`${head}\n${branches}`).ast).diagnostics.map((d) => `${d.code} ${d.message} | ${d.hint}`);
    expect(messages("parallel (first):")).toEqual([
      'P003 `first` is not a value for `parallel` | a join is a string: write `"first"`',
    ]);
    expect(messages("parallel (every):")).toEqual([
      "P003 `every` is not a value for `parallel` | use one of `all`, `first`, `any`",
    ]);
    expect(messages("parallel (on-fail: 3):")).toEqual([
      "P003 `3` is not a value for `on-fail:` | use one of `fail-fast`, `continue`, `ignore`",
    ]);
    expect(messages("parallel ([1]):")).toEqual([
      "P003 `this` is not a value for `parallel` | use one of `all`, `first`, `any`",
    ]);
  });

  it.each([
    ['parallel ("any", count: 2, on-fail: ignore):', "rt.any", '{ count: 2, onFail: "ignore" }', "any 2", "ignore"],
    ['parallel ("first"):', "rt.first", "{  }", "first", "fail-fast"],
    ['parallel (on-fail: "fail-fast"):', "rt.branches", "{  }", "all", "fail-fast"],
    ['parallel (on-fail: "ignore"):', "rt.branches", '{ onFail: "ignore" }', "all", "ignore"],
  ])("%s: lowering, the value types and the graph read the same plan", (head, call, options, join, onFail) => {
    const source = `${head}\n${branches}output first = a\n`;
    const { code, diagnostics } = lowerSource(source, "plan.prose");
    expect(diagnostics).toEqual([]);
    expect(code).toContain(`${call}({ line: 1, column: 1 }, ${options}, [`);
    // Only a plain `all` under fail-fast gives each branch's own value; a race or a failure policy any `Value`.
    expect(code).toMatch(
      join === "all" && onFail === "fail-fast" ? /readonly first: string;/ : /readonly first: Value;/,
    );
    const graph = graphOfSource(source).graph!;
    const fork = graph.nodes.find((node) => node.lines[0]?.startsWith("parallel · "))!;
    expect(fork.lines).toEqual([`parallel · ${join}`, `on-fail: ${onFail}`, ...fork.lines.slice(2)]);
  });
});
