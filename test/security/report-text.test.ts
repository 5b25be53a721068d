/**
 * The reports prosec prints about runs (`prosec test`, `prosec eval`, `prosec runs show`) show text
 * a model wrote or a run's files hold: a judge's reason, a recorded answer inside the next prompt,
 * an input's prompt. None of it may reach the terminal as an escape sequence (a new window title, the
 * clipboard through OSC 52, a cleared screen), a carriage return or a bidirectional override.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { sha256 } from "../../src/project/imports.js";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CaseResult } from "../../src/eval/case-result.js";
import { reportOf } from "../../src/eval/report.js";
import { summarize } from "../../src/eval/summary.js";
import { caseLine, terminalReport } from "../../src/eval/terminal-report.js";
import { formatResult } from "../../src/golden/report.js";
import type { StepReport } from "../../src/golden/replay.js";
import type { GoldenResult } from "../../src/golden/run-golden.js";
import { prosec, startProsec } from "../support/cli.js";
import { startFakeRegistry } from "../support/fake-registry.js";
import { temporaryFolder } from "../support/temp.js";
import { runManifest } from "../support/run-manifest.js";

/** Sets the window title, writes the clipboard, clears the screen, overwrites the line, reverses what follows. */
const HOSTILE = "fine\u001b]0;pwned\u0007\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\rover\u202eexe.txt";
/** Any of those. */
const UNSAFE = /[\u001b\u0007\r\u009b\u009d\u202a-\u202e\u2066-\u2069]/;

describe("prosec test's report", () => {
  const step = {
    key: "k",
    kind: "session",
    source: "review.prose",
    at: { line: 3, column: 1 },
    binding: "draft",
    asked: `Improve this draft: ${HOSTILE}`,
  } as unknown as StepReport;
  const result: GoldenResult = {
    name: `tests/${HOSTILE}.golden`,
    program: "review.prose",
    passed: false,
    failures: [
      { kind: "missing-step", message: "the session draft was not recorded", step },
      {
        kind: "output",
        message: "output review differs",
        output: "review",
        expected: { a: "x" },
        actual: { a: HOSTILE },
      },
      { kind: "error", message: `the run failed: ${HOSTILE}` },
    ],
    changed: [step],
    unusedSteps: 0,
    written: [],
  };

  it("shows what the recording and the model wrote without their escape sequences", () => {
    const shown = formatResult(result, { color: false, writePending: false });
    expect(shown).not.toMatch(UNSAFE);
    expect(shown).toContain("asks: Improve this draft: fineoverexe.txt");
    expect(shown).toContain("the run failed: fineoverexe.txt");
  });

  it("in colour, keeps only its own colours", () => {
    const shown = formatResult(result, { color: true, writePending: false });
    expect(shown.replace(/\u001b\[\d+m/g, "")).not.toMatch(UNSAFE);
  });
});

describe("prosec eval's report", () => {
  it("shows a judge's reason, a case's name and a case's error without their escape sequences", () => {
    const cases: CaseResult[] = [
      {
        case: `one${HOSTILE}`,
        repeat: 1,
        runId: "20260101-000000-000001",
        status: "scored",
        asserts: [
          {
            id: "names the risk",
            line: 3,
            passed: false,
            message: `names ${HOSTILE}`,
            judge: { answer: "no", reason: HOSTILE },
          },
        ],
        calls: 2,
        ms: 10,
      },
      {
        case: "two",
        repeat: 1,
        runId: "20260101-000000-000002",
        status: "error",
        asserts: [],
        error: HOSTILE,
        calls: 1,
        ms: 5,
      },
    ];
    const summary = summarize(
      { evalId: "20260101-000000-eeeeee", program: "x.eval.prose", repeat: 1, planned: 2 },
      cases,
    );
    const shown = terminalReport(reportOf(summary, 20, undefined, undefined));
    expect(shown).not.toMatch(UNSAFE);
    expect(shown).toContain("the judge: no (fineoverexe.txt)");
  });
});

describe("prosec eval's line as each case ends", () => {
  it("shows a case's name and its error on one line without their escape sequences", () => {
    const errored: CaseResult = {
      case: `one${HOSTILE}`,
      repeat: 2,
      runId: "20260101-000000-000001",
      status: "error",
      asserts: [],
      error: `the endpoint said\n${HOSTILE}`,
      calls: 1,
      ms: 5,
    };
    const line = caseLine(errored, 3);
    expect(line).not.toMatch(UNSAFE);
    expect(line).not.toContain("\n");
    expect(line).toMatch(/^! onefineoverexe\.txt #2 · error: the endpoint said fineoverexe\.txt · /);
    const scored: CaseResult = { ...errored, case: HOSTILE, status: "scored", asserts: [] };
    expect(caseLine(scored, 1)).toMatch(/^✓ fineoverexe\.txt · 0\/0 asserts held · /);
  });
});

describe("prosec runs show", () => {
  it("prints a waiting run's input prompt without its escape sequences", () => {
    const cwd = temporaryFolder("prosec-report-text-");
    const runId = "20260101-000000-abcdef";
    const dir = join(cwd, ".prose", "runs", runId);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "run.json"), runManifest({ runId }));
    writeFileSync(join(dir, "journal.jsonl"), "");
    writeFileSync(
      join(dir, "waiting.json"),
      JSON.stringify({ questions: [{ name: "topic", prompt: HOSTILE }], answers: {} }),
    );
    const shown = prosec(["runs", "show", runId], cwd);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain('waiting for input "topic" (fineoverexe.txt)');
    expect(shown.stdout).not.toMatch(UNSAFE);
  });
});

describe("the registry commands", () => {
  it("print a committed file's name and a locked URL without their escape sequences", async () => {
    const cwd = temporaryFolder("prosec-report-text-");
    const program = 'output headline = session "Write a headline"\n';
    const registry = await startFakeRegistry({ "/carol/news%1B]0;pwned%07/x": program });
    try {
      const url = `${registry.url}/carol/news\u001b]0;pwned\u0007/x`;
      const programs = { "carol/news": { url, sha256: sha256(program), uses: [] } };
      writeFileSync(join(cwd, "prose.lock"), JSON.stringify({ lockfileVersion: 1, registry: registry.url, programs }));
      mkdirSync(join(cwd, "prose_modules"));
      writeFileSync(join(cwd, "prose_modules", `x${HOSTILE}.prose`), program);
      const checked = await startProsec(["install", "--check"], cwd).exit;
      expect(checked.stdout).toContain("prose_modules/xfineoverexe.txt.prose is not in prose.lock");
      expect(checked.stdout).not.toMatch(UNSAFE);
      const installed = await startProsec(["install"], cwd, { PROSEC_REGISTRY: registry.url }).exit;
      expect(installed.status).toBe(0);
      expect(installed.stderr).toContain(`fetched carol/news from ${registry.url}/carol/news/x (sha256`);
      expect(installed.stderr).not.toMatch(UNSAFE);
    } finally {
      await registry.close();
    }
  });
});
