/** The eval's figures (Wilson intervals, the baseline rule), its cases file, and the scored lowering of asserts. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { compare, type Baseline } from "../../src/eval/baseline.js";
import type { CaseResult } from "../../src/eval/case-result.js";
import { readCases } from "../../src/eval/cases.js";
import { rateOf, summarize } from "../../src/eval/summary.js";
import { wilsonInterval } from "../../src/eval/wilson.js";
import { temporaryFolder } from "../support/temp.js";

const round = (value: number): number => Math.round(value * 10_000) / 10_000;

describe("Wilson 95% intervals", () => {
  it.each([
    [0, 10, 0, 0.2775],
    [5, 10, 0.2366, 0.7634],
    [8, 10, 0.4902, 0.9433],
    [3, 3, 0.4385, 1],
    [10, 10, 0.7225, 1],
    [0, 3, 0, 0.5615],
  ])("%i of %i is [%f, %f]", (passes, trials, low, high) => {
    const interval = wilsonInterval(passes, trials);
    expect([round(interval.low), round(interval.high)]).toEqual([low, high]);
  });

  it("says nothing (0 to 1) of no trials", () => {
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

function summaryOf(passes: number, trials: number) {
  const results: CaseResult[] = Array.from({ length: trials }, (_, index) => ({
    case: `c${index}`,
    repeat: 1,
    runId: `r${index}`,
    status: "scored",
    asserts: [{ id: "names every risk", line: 3, passed: index < passes }],
    calls: 2,
    ms: 1,
  }));
  return summarize({ evalId: "e", program: "p.prose", repeat: 1, planned: trials }, results);
}

function baselineOf(passes: number, trials: number): { file: string; data: Baseline } {
  const rate = rateOf(passes, trials);
  return {
    file: "base.json",
    data: {
      format: "prosec-eval-baseline",
      version: 1,
      evalId: "b",
      program: "p.prose",
      overall: rate,
      asserts: [{ id: "names every risk", ...rate }],
    },
  };
}

describe("the baseline rule", () => {
  it("fails an assert whose new upper bound is below the baseline's lower bound (10/10 → 3/10)", () => {
    const comparison = compare(summaryOf(3, 10), baselineOf(10, 10), undefined);
    expect(comparison.failed).toBe(true);
    const change = comparison.changes.find((candidate) => candidate.id === "names every risk")!;
    expect(change).toMatchObject({ kind: "regressed", fails: true });
    expect(round(change.delta!)).toBe(-0.7);
  });

  it("passes a drop the intervals allow (10/10 → 8/10) and says how far it moved", () => {
    const comparison = compare(summaryOf(8, 10), baselineOf(10, 10), undefined);
    expect(comparison.failed).toBe(false);
    expect(comparison.changes.find((candidate) => candidate.id === "names every risk")).toMatchObject({
      kind: "dropped",
      fails: false,
    });
  });

  it("fails below --min only when the upper bound is below it", () => {
    expect(compare(summaryOf(0, 3), undefined, 0.9).failed).toBe(true);
    expect(compare(summaryOf(2, 3), undefined, 0.9).failed).toBe(false);
  });

  it("matches asserts by id: one gone from the program is reported, not failed", () => {
    const base = baselineOf(5, 5);
    const renamed = { ...base, data: { ...base.data, asserts: [{ ...base.data.asserts[0]!, id: "old message" }] } };
    const comparison = compare(summaryOf(5, 5), renamed, undefined);
    expect(comparison.changes.map((change) => [change.id, change.kind])).toEqual([
      ["names every risk", "new"],
      ["old message", "missing"],
      ["overall", "same"],
    ]);
    expect(comparison.failed).toBe(false);
  });
});

describe("cases", () => {
  it("reads a JSON Lines file and a folder of .json files", () => {
    const folder = temporaryFolder("prosec-cases-");
    writeFileSync(join(folder, "cases.jsonl"), '{"name":"a","inputs":{"x":"1"}}\n\n{"inputs":{"x":"2"}}\n');
    expect(readCases(join(folder, "cases.jsonl"))).toEqual([
      { name: "a", inputs: { x: "1" } },
      { name: "case 2", inputs: { x: "2" } },
    ]);
    mkdirSync(join(folder, "many"));
    writeFileSync(join(folder, "many", "b.json"), '{"inputs":{"x":["l"]}}');
    writeFileSync(join(folder, "many", "a.json"), '{"name":"first","inputs":{}}');
    expect(readCases(join(folder, "many"))).toEqual([
      { name: "first", inputs: {} },
      { name: "b", inputs: { x: ["l"] } },
    ]);
  });

  it("names the file and line of a case it cannot read", () => {
    const folder = temporaryFolder("prosec-cases-");
    const file = join(folder, "cases.jsonl");
    writeFileSync(file, '{"name":"a","inputs":{}}\n{"name":"b","input":{}}\n');
    expect(() => readCases(file)).toThrow(`${file}:2: a case is {"name": "...", "inputs"`);
    writeFileSync(file, '{"name":"a","inputs":{}}\n{"name":"a","inputs":{}}\n');
    expect(() => readCases(file)).toThrow('two cases are named "a"');
  });
});

describe("asserts under prosec eval", () => {
  const source = `input topic: "A topic"

let summary = session "Summarise {topic}"

assert **the summary names {topic}**:
  "names the topic"

block check(text):
  assert **{text} is short**

assert **the summary is polite**

do check(summary)
`;

  /** The scored checks of a module, each on one line: `rt.asserts.check( { line: 5, column: 1 }, ..., "id", );`. */
  const checks = (code: string) =>
    [...code.replace(/\s+/g, " ").matchAll(/rt\.asserts\.check\(.*?\);/g)].map((m) => m[0]);
  const idOf = (check: string) => / "([^"]*)",(?: "[^"]*",)? \);$/.exec(check)?.[1];

  it("lower to scored checks named by message, else by block and place", async () => {
    const scored = checks((await compile(source, "e.prose", { scoreAsserts: true })).code!);
    expect(scored).toEqual([
      'rt.asserts.check( { line: 5, column: 1 }, await rt.judge({ line: 5, column: 8 }, `the summary names ${text(topic)}`, $bindings("summary"), "assert"), "names the topic", "names the topic", );',
      'rt.asserts.check( { line: 9, column: 3 }, await rt.judge( { line: 9, column: 10 }, `${text(text$)} is short`, $bindings("summary", { text: text$ }), "assert", ), "block check: assert #1", );',
      'rt.asserts.check( { line: 11, column: 1 }, await rt.judge({ line: 11, column: 8 }, "the summary is polite", $bindings("summary"), "assert"), "program: assert #1", );',
    ]);
  });

  it("keep their ids when lines are added above them", async () => {
    const after = checks((await compile(`# a comment\n\n${source}`, "e.prose", { scoreAsserts: true })).code!);
    expect(after.map(idOf)).toEqual(["names the topic", "block check: assert #1", "program: assert #1"]);
    expect(after[0]).toContain("{ line: 7, column: 1 }");
  });

  it("raise everywhere else", async () => {
    const plain = (await compile(source, "e.prose")).code!.replace(/\s+/g, " ");
    expect(checks(plain)).toEqual([]);
    expect(plain).toContain('"assert"))) throw rt.fail({ line: 5, column: 1 }, "names the topic");');
  });
});
