/**
 * What a judgment may look at, counted for the cost bound: the count by binary search over the
 * program's scope equals counting every visible name one by one, at every judgment of every corpus
 * program and of a generated program with shadowing.
 */
import { describe, expect, it } from "vitest";
import type * as ast from "../../src/ast.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { analyze, type Analysis } from "../../src/phases/2-analyze/index.js";
import { judgedKinds, visibleValueCount } from "../../src/phases/2-analyze/visible-values.js";
import { walk } from "../../src/walk.js";
import { corpusPrograms } from "../support/corpus.js";

function namesOneByOne(analysis: Analysis, node: ast.Node, before: number): number {
  const names = new Set<string>();
  for (let scope = analysis.scopeOf.get(node) ?? null; scope !== null; scope = scope.parent)
    for (const symbol of scope.symbols.values())
      if (judgedKinds.has(symbol.kind) && symbol.declaration.loc.start.offset <= before) names.add(symbol.name);
  return names.size;
}

function judgmentsAgree(source: string): number {
  const { ast: program } = parse(source);
  const analysis = analyze(program);
  let judgments = 0;
  walk(program, (node) => {
    if (node.kind !== "Discretion") return;
    judgments += 1;
    const at = node.loc.start.offset;
    expect(visibleValueCount(analysis, node, at)).toBe(namesOneByOne(analysis, node, at));
  });
  return judgments;
}

describe("visible values at a judgment", () => {
  it("counts the same as naming them one by one in every corpus program", () => {
    const judgments = corpusPrograms.reduce((sum, program) => sum + judgmentsAgree(program.source), 0);
    expect(judgments).toBeGreaterThan(50);
  });

  it("counts a name shadowed by a block parameter or loop item once, and nothing declared later", () => {
    const source = [
      'let topic = session "Pick"',
      'let item = "outer"',
      "block review(topic):",
      "  for item in [1, 2]:",
      "    if **{item} of {topic} is fine**:",
      '      session "ok"',
      "do review(topic)",
      "if **all is well**:",
      '  session "done"',
      'let later = session "after"',
      "",
    ].join("\n");
    expect(judgmentsAgree(source)).toBe(2);
    const { ast: program } = parse(source);
    const analysis = analyze(program);
    const counts: number[] = [];
    walk(program, (node) => {
      if (node.kind === "Discretion") counts.push(visibleValueCount(analysis, node, node.loc.start.offset));
    });
    expect(counts).toEqual([2, 2]);
  });
});
