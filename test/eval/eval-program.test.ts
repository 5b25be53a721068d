/**
 * `prosec eval`'s engine against the scripted model of `prosec/testing` (offline): the eval program
 * compiled once with its asserts scored, the cases run as durable runs, and the rates and intervals
 * computed exactly for known answers. The engine and the loader are the built ones (dist/), as the
 * CLI runs them, so the runtime's classes are the ones the engine checks errors against.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type * as Engine from "../../src/eval/run-eval.js";
import type * as Folder from "../../src/eval/eval-folder.js";
import type * as Loader from "../../src/run/load-program.js";
import type * as Testing from "../../runtime/testing/index.js";
import type { ScriptedStep } from "../../runtime/testing/index.js";
import { summarize } from "../../src/eval/summary.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { temporaryFolder } from "../support/temp.js";

const SUMMARISE = `input article: "The article to summarise"

assert **the article "{article}" is in English**:
  "the article must be in English"

output summary = session "Summarise in two sentences: {article}"
`;

const EVAL = `use "./summarise.prose" as summarise

input article: "The article"
input risk: "A risk the summary must name"

let { summary } = summarise(article: article)

assert **the summary names {risk}**:
  "names the risk"

assert **the summary of {article} is short**

output result = summary
`;

/** The judge: a risk named `pass-*` is named; an article with `long` in it is not short; `French` is not English. */
function judge(step: ScriptedStep): Testing.Answer {
  if (step.kind !== "judge") return `summary of ${step.text}`;
  if (step.text.includes("English")) return { answer: !step.text.includes("French"), reason: "language" };
  if (step.text.includes("names")) return { answer: step.text.includes("pass-"), reason: `looked for ${step.text}` };
  return { answer: !step.text.includes("long"), reason: "length" };
}

const CASES = [
  { name: "one", inputs: { article: "a short one", risk: "pass-1" } },
  { name: "two", inputs: { article: "a short two", risk: "pass-2" } },
  { name: "three", inputs: { article: "a long three", risk: "pass-3" } },
  { name: "four", inputs: { article: "a short four", risk: "fail-4" } },
  { name: "five", inputs: { article: "a short five", risk: "fail-5" } },
  { name: "six", inputs: { article: "a French six", risk: "pass-6" } },
];

let engine: typeof Engine;
let folder: typeof Folder;
let loader: typeof Loader;
let testing: typeof Testing;

beforeAll(async () => {
  requireBuiltRuntime();
  engine = (await import("../../dist/src/eval/run-eval.js")) as typeof Engine;
  folder = (await import("../../dist/src/eval/eval-folder.js")) as typeof Folder;
  loader = (await import("../../dist/src/run/load-program.js")) as typeof Loader;
  testing = (await import("../../dist/runtime/testing/index.js")) as unknown as typeof Testing;
});

async function project(): Promise<{ cwd: string; module: Loader.ProgramModule }> {
  const cwd = temporaryFolder("prosec-eval-");
  writeFileSync(join(cwd, "summarise.prose"), SUMMARISE);
  writeFileSync(join(cwd, "summarise.eval.prose"), EVAL);
  const loaded = await loader.loadProgram("summarise.eval.prose", { cwd, scoreAsserts: true });
  expect(loaded.files.flatMap((file) => file.diagnostics)).toEqual([]);
  return { cwd, module: loaded.module! };
}

function manifestOf(module: Loader.ProgramModule, repeat = 1): Folder.EvalManifest {
  return {
    format: folder.EVAL_FORMAT,
    evalId: "20260101-000000-eeeeee",
    program: "summarise.eval.prose",
    sourceHash: module.default.sourceHash,
    cases: "cases.jsonl",
    repeat,
    startedAt: new Date(0).toISOString(),
    runs: CASES.flatMap((entry, index) =>
      Array.from({ length: repeat }, (_, r) => ({
        case: entry.name,
        repeat: r + 1,
        runId: `20260101-000000-${String(index * 10 + r).padStart(6, "0")}`,
        inputs: entry.inputs,
      })),
    ),
  };
}

describe("prosec eval's engine, scripted", () => {
  it("scores every assert of every case, counts errors apart, and gives exact rates and Wilson intervals", async () => {
    const { cwd, module } = await project();
    const model = new testing.ScriptedModel({ defaults: judge });
    const manifest = manifestOf(module);
    const evalDir = folder.evalFolder(cwd, manifest.evalId);
    folder.writeManifest(evalDir, manifest);
    const outcome = await engine.runEval({
      module,
      manifest,
      evalDir,
      cwd,
      concurrency: 3,
      runOptions: () => model.options(),
    });
    expect(outcome.stopped).toBeUndefined();
    const byCase = new Map(outcome.results.map((result) => [result.case, result]));

    // A failing assert does not stop the case: the one after it was judged too.
    const four = byCase.get("four")!;
    expect(four.status).toBe("scored");
    expect(four.asserts.map((outcome) => [outcome.id, outcome.passed])).toEqual([
      ["names the risk", false],
      ["program: assert #1", true],
    ]);
    expect(four.asserts[0]!.judge).toEqual({ answer: "no", reason: "looked for the summary names fail-4" });
    const three = byCase.get("three")!;
    expect(three.asserts.map((outcome) => outcome.passed)).toEqual([true, false]);

    // The program the eval calls keeps its assert: it raises, and the case is an error.
    const six = byCase.get("six")!;
    expect(six.status).toBe("error");
    expect(six.error).toContain("the article must be in English");

    const summary = summarize(
      { evalId: manifest.evalId, program: manifest.program, repeat: 1, planned: 6 },
      outcome.results,
    );
    expect([summary.finished, summary.scored, summary.errors]).toEqual([6, 5, 1]);
    const rates = Object.fromEntries(
      summary.asserts.map((assert) => [
        assert.id,
        [assert.passes, assert.trials, round(assert.low), round(assert.high)],
      ]),
    );
    // Wilson 95%: 3/5 → [0.2307, 0.8824], 4/5 → [0.3755, 0.9638], 2/5 → [0.1176, 0.7693].
    expect(rates).toEqual({ "names the risk": [3, 5, 0.2307, 0.8824], "program: assert #1": [4, 5, 0.3755, 0.9638] });
    expect([
      summary.overall.passes,
      summary.overall.trials,
      round(summary.overall.low),
      round(summary.overall.high),
    ]).toEqual([2, 5, 0.1176, 0.7693]);

    // Each case is a durable run in .prose/runs, tagged with the eval; each finished case is one line of results.
    for (const entry of manifest.runs) {
      const runDir = folder.runFolder(cwd, entry.runId);
      expect(folder.readTag(runDir)).toEqual({ evalId: manifest.evalId, case: entry.case, repeat: 1 });
      expect(JSON.parse(readFileSync(join(runDir, "run.json"), "utf8"))).toMatchObject({ inputs: entry.inputs });
    }
    expect(folder.readResults(evalDir).size).toBe(6);
  });

  it("runs no finished case again, and repeats each case --repeat times", async () => {
    const { cwd, module } = await project();
    const model = new testing.ScriptedModel({ defaults: judge });
    const manifest = manifestOf(module, 2);
    const evalDir = folder.evalFolder(cwd, manifest.evalId);
    folder.writeManifest(evalDir, manifest);
    // Four cases finished in an earlier process (the last line cut short by a crash is not one).
    const first = await engine.runEval({
      module,
      manifest: { ...manifest, runs: manifest.runs.slice(0, 4) },
      evalDir,
      cwd,
      concurrency: 2,
      runOptions: () => model.options(),
    });
    expect(first.results).toHaveLength(4);
    writeFileSync(
      join(evalDir, "results.jsonl"),
      `${readFileSync(join(evalDir, "results.jsonl"), "utf8")}{"case":"thr`,
    );
    const asked = model.requests.length;
    const second = await engine.runEval({
      module,
      manifest,
      evalDir,
      cwd,
      concurrency: 2,
      runOptions: () => model.options(),
    });
    expect(second.results).toHaveLength(12);
    // 8 cases left, each a session and judgments: none of the four finished ones asked again.
    const again = model.requests.slice(asked).map((request) => request.prompt);
    for (const done of ["a short one", "a short two"])
      expect(again.some((prompt) => prompt.includes(done))).toBe(false);
    expect(second.results.map((result) => `${result.case}#${result.repeat}`)).toEqual(
      CASES.flatMap((entry) => [`${entry.name}#1`, `${entry.name}#2`]),
    );
  });
});

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
