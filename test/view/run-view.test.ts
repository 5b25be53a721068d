/**
 * What `prosec view` reads of a run, without a browser: the index the page opens with (steps as
 * columns), one step's details, and a report's compressed chunks, checked against the run's own files.
 */
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { REPORT_CHUNK_STEPS, reportDetails } from "../../src/view/report.js";
import { readRunSteps } from "../../src/view/run-steps.js";
import { readRunView } from "../../src/view/run-view.js";
import { STEP_STATES, stepKey } from "../../src/view/step-columns.js";
import { readStepDetail, stepDetailOf, type StepDetail } from "../../src/view/step-detail.js";
import { temporaryFolder } from "../runtime/helpers.js";
import { writeLongRun } from "./long-run.js";

const fixtures = join(import.meta.dirname, "../fixtures/view-runs");
const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function fixture(name: string) {
  const runs = join(fixtures, name, ".prose", "runs");
  const runId = readdirSync(runs)[0]!;
  const dir = join(runs, runId);
  const journal = readFileSync(join(dir, "journal.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { key: string; kind: string });
  return { runId, dir, journal };
}

const unpack = <T>(base64: string): T => JSON.parse(gunzipSync(Buffer.from(base64, "base64")).toString("utf8")) as T;

describe("a run's index", () => {
  it("has one entry per step of the journal, whose keys, kinds and lines it gives back", () => {
    const { runId, dir, journal } = fixture("finished");
    const { steps, lines, finished } = readRunView(runId, dir, { graph: false });
    expect(finished).toBe(journal.length);
    expect(steps.count).toBe(journal.length);
    const keys = Array.from({ length: steps.count }, (_, index) => stepKey(steps, index));
    expect(keys.sort()).toEqual(journal.map((record) => record.key).sort());
    for (let index = 0; index < steps.count; index++) {
      const record = journal.find((candidate) => candidate.key === stepKey(steps, index))!;
      expect(steps.kinds[steps.kind[index]!]).toBe(record.kind);
      expect(steps.line[index]).toBe(Number(/@(\d+):\d+#\d+$/.exec(record.key)![1]));
      expect(STEP_STATES[steps.state[index]!]).toBe("done");
    }
    // Each line's runs are the journal's steps on it, and its cost theirs.
    for (const view of lines) {
      const on = Array.from({ length: steps.count }, (_, index) => index).filter(
        (index) => steps.line[index] === view.line,
      );
      expect(view.runs).toBe(on.length);
      expect(view.cost).toBeCloseTo(
        on.reduce((sum, index) => sum + (steps.cost[index] ?? 0), 0),
        5,
      );
    }
  });

  it("stores a repeated lane, kind and label once", () => {
    const cwd = temporaryFolder("prosec-view-index-");
    folders.push(cwd);
    const run = writeLongRun(cwd, 300);
    const { steps } = readRunView(run.runId, run.dir, { graph: false });
    expect(steps.count).toBe(300);
    expect(steps.kinds).toEqual(["session"]);
    expect(steps.lanes).toHaveLength(300);
    expect(new Set(steps.leaf)).toEqual(new Set(["session@2:3#0"]));
    expect(Array.from({ length: 300 }, (_, index) => stepKey(steps, index))).toEqual(run.keys);
    // No request text: those come with a step's details.
    expect(JSON.stringify(readRunView(run.runId, run.dir, { graph: false }))).not.toContain(run.prompt(0));
  });
});

describe("a step's details", () => {
  it("are its trace's requests, with the texts they name and no others", () => {
    const { runId, dir, journal } = fixture("finished");
    const judgment = journal.find((record) => record.kind === "judge")!;
    const { detail, texts } = readStepDetail(runId, dir, judgment.key)!;
    expect(detail.key).toBe(judgment.key);
    expect(detail.reason).toMatch(/Scripted: the evidence says/);
    expect(detail.requests.length).toBeGreaterThan(0);
    const blockText = (block: object): string =>
      "text" in block
        ? String(block.text)
        : "input" in block
          ? String(block.input)
          : String((block as { result: string }).result);
    const named = new Set([
      ...detail.requests.flatMap((request) => request.system),
      ...detail.requests.flatMap((request) => request.messages.flatMap((message) => message.content.map(blockText))),
    ]);
    for (const id of named) expect(texts[id]).toBeDefined();
    expect(Object.values(texts).join("\n")).toContain("the poem is polished");
    expect(readStepDetail(runId, dir, "/session@99:1#0")).toBeUndefined();
  });

  it("come in a report in compressed chunks, each step's at its place in the index", () => {
    const cwd = temporaryFolder("prosec-view-report-");
    folders.push(cwd);
    const run = writeLongRun(cwd, REPORT_CHUNK_STEPS + 20);
    const steps = readRunSteps(run.runId, run.dir);
    const report = reportDetails(steps, run.dir);
    expect(report.chunks).toHaveLength(2);
    const second = unpack<StepDetail[]>(report.chunks[1]!);
    expect(second).toHaveLength(20);
    expect(second[19]).toEqual(JSON.parse(JSON.stringify(stepDetailOf(steps.steps[REPORT_CHUNK_STEPS + 19]!))));
    const texts = unpack<Record<string, string>>(report.texts);
    const prompt = second[19]!.requests[0]!.messages[0]!.content[0] as { text: string };
    expect(texts[prompt.text]).toBe(run.prompt(REPORT_CHUNK_STEPS + 19));
  });
});
