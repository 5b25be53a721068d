/**
 * `--json` output holds a model's and a run's text, and users pipe it through `jq -r` to a terminal.
 * JSON.stringify escapes only what is below U+0020, so C1 controls (8-bit CSI U+009B, OSC U+009D),
 * DEL, bidirectional controls and line separators went out raw. Every command with `--json` now
 * writes them as `\uXXXX`: the same JSON, nothing a terminal acts on. Each command is run here as a
 * user runs it, on a project made by `prosec init` whose recorded text was made hostile. (`status`
 * and `result` need PostgreSQL; they write through the same jsonText, which the last test holds.)
 */
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonText } from "../../src/json-text.js";
import { prosec, repositoryRoot, startProsec } from "../support/cli.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { temporaryFolder } from "../support/temp.js";
import { TEST_API_KEY } from "../runtime/helpers.js";

/** A CSI that clears the screen, an OSC that sets the title, a right-to-left override, NEL. */
const HOSTILE = "ok\u009b2J\u009d0;pwned\u009c\u202eexe.txt\u0085\u2028end";
const RAW = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

let model: FakeServer | undefined;
afterAll(async () => {
  await model?.close();
});

/** stdout holds the hostile text, escaped, and nothing raw. */
function expectEscaped(stdout: string): void {
  expect(stdout).not.toMatch(RAW);
  expect(stdout).toContain("\\u009b2J\\u009d0;pwned\\u009c\\u202eexe.txt\\u0085\\u2028end");
}

describe("--json output", () => {
  const cwd = temporaryFolder("prosec-json-output-");
  beforeAll(() => {
    expect(prosec(["init"], cwd).status).toBe(0);
  });

  it("of test and eval escapes a recording's and a judge's text", () => {
    const expectedFile = join(cwd, "tests/research.golden/expected.json");
    const expected = JSON.parse(readFileSync(expectedFile, "utf8")) as { outputs: Record<string, string> };
    writeFileSync(expectedFile, JSON.stringify({ ...expected, outputs: { ...expected.outputs, brief: HOSTILE } }));
    const tested = prosec(["test", "--json"], cwd);
    expect(tested.status).not.toBe(0);
    expectEscaped(tested.stdout);
    expect(JSON.stringify(JSON.parse(tested.stdout))).toContain(HOSTILE);

    const scriptFile = join(cwd, "evals/research.script.json");
    const script = JSON.parse(readFileSync(scriptFile, "utf8")) as { answers: Record<string, string> };
    writeFileSync(
      scriptFile,
      JSON.stringify({
        ...script,
        answers: { ...script.answers, brief: HOSTILE },
        defaults: { judge: { answer: false, reason: HOSTILE } },
      }),
    );
    const evaluated = prosec(
      [
        "eval",
        "evals/research.eval.prose",
        "--cases",
        "evals/research.cases.jsonl",
        "--scripted",
        scriptFile,
        "--json",
      ],
      cwd,
    );
    expectEscaped(evaluated.stdout);
    expect(JSON.stringify(JSON.parse(evaluated.stdout))).toContain(HOSTILE);
  });

  it("of check and cost escapes a file's name", () => {
    const named = join(cwd, "src", `x${HOSTILE}.prose`);
    copyFileSync(join(cwd, "src/research.prose"), named);
    writeFileSync(join(cwd, "src", `y${HOSTILE}.prose`), 'output x = session "a\n');
    const checked = prosec(["check", "--json", "src"], cwd);
    expectEscaped(checked.stdout);
    expect(JSON.parse(checked.stdout)).toBeTruthy();
    const costed = prosec(["cost", "--json", named], cwd);
    expect(costed.status).toBe(0);
    expectEscaped(costed.stdout);
    expect(readdirSync(join(cwd, "src"))).toContain(`x${HOSTILE}.prose`);
  });

  it("of run escapes the model's answer in every line", async () => {
    model = await startFakeAnthropic({ script: [reply.text(HOSTILE)] });
    writeFileSync(join(cwd, `hi${HOSTILE}.prose`), 'output answer = session "Say hi"\n');
    const run = await startProsec(["run", `hi${HOSTILE}.prose`, "--json"], cwd, {
      ANTHROPIC_API_KEY: TEST_API_KEY,
      ANTHROPIC_BASE_URL: model.url,
    }).exit;
    expect(run.status).toBe(0);
    expectEscaped(run.stdout);
    const lines = run.stdout.trimEnd().split("\n");
    const outputs = lines.map((line) => JSON.parse(line) as { type: string; outputs?: unknown }).at(-1);
    expect(outputs).toMatchObject({ type: "outputs", outputs: { answer: HOSTILE } });
  });

  it("of runs and runs show (after run) escapes a stored run's file name", () => {
    const listed = prosec(["runs", "--json"], cwd);
    expect(listed.status).toBe(0);
    expectEscaped(listed.stdout);
    const runs = JSON.parse(listed.stdout) as Array<{ runId: string; source: string }>;
    const hi = runs.find((run) => run.source === `hi${HOSTILE}.prose`);
    expect(hi).toBeDefined();
    const shown = prosec(["runs", "show", hi!.runId, "--json"], cwd);
    expect(shown.status).toBe(0);
    expect(shown.stdout).not.toMatch(RAW);
    expect(JSON.parse(shown.stdout)).toHaveLength(1);
  });

  it("is written by jsonText in every writer, which changes no value", () => {
    const codes = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);
    const every = String.fromCharCode(...codes(0, 0x100), ...codes(0x2000, 0x2070));
    const text = jsonText({ every, nested: [every] }, 2);
    expect(text).not.toMatch(RAW);
    expect(JSON.parse(text)).toEqual({ every, nested: [every] });
    for (const folder of ["src/cli", "src/run"])
      for (const file of readdirSync(join(repositoryRoot, folder)).filter((name) => name.endsWith(".ts"))) {
        const source = readFileSync(join(repositoryRoot, folder, file), "utf8");
        if (/process\.stdout|out\.write/.test(source)) expect(`${file}: ${source}`).not.toMatch(/JSON\.stringify\(/);
      }
  });
});
