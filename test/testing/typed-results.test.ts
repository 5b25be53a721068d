/**
 * Compiled programs with `returns:` on the real runtime against `prosec/testing`'s scripted model:
 * typed answers built from the schema by default, a wrong answer re-asked then right, one never
 * right caught by the program's `catch`, and a loop over a typed list making no extraction call where
 * the same program without `returns:` makes them.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadProgram, type ProgramModule } from "../../src/run/load-program.js";
import { runScripted, toolCall, turns } from "../../runtime/testing/index.js";
import { temporaryFolder } from "../runtime/helpers.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";

let project: string;

async function compile(source: string, name: string): Promise<ProgramModule> {
  writeFileSync(join(project, name), source);
  const loaded = await loadProgram(name, { cwd: project });
  if (loaded.module === undefined) throw new Error(JSON.stringify(loaded.files.map((file) => file.diagnostics)));
  return loaded.module;
}

beforeAll(() => {
  requireBuiltRuntime();
  project = temporaryFolder("prosec-typed-");
});

const RISKS = `let risks = session "List the risks in the plan"
  returns: [{ title: string, severity: "low" | "high", detail?: string }]
`;

const LOOP = (returns: string) => `let risks = session "List the risks in the plan"
${returns}
let fixes = []
for r in risks:
  let fix = session "Fix {r}"
  fixes = fixes + [fix]
output fixes = fixes
`;

describe("typed results in compiled programs", () => {
  it("the scripted model answers a typed session with a value of its type by default, in one request", async () => {
    const program = await compile(`${RISKS}output risks = risks\noutput first = risks[0].title\n`, "defaults.prose");
    const run = await runScripted(program, {});
    expect(run.outputs).toEqual({
      risks: [
        { title: "title", severity: "low", detail: "detail" },
        { title: "title", severity: "low", detail: "detail" },
      ],
      first: "title",
    });
    expect(run.requests).toHaveLength(1);
    expect(run.events.filter((event) => event.type === "unexpected-answer")).toEqual([]);
  });

  it("a wrong shape once, then right: one re-ask quoting what failed", async () => {
    const program = await compile(`${RISKS}output risks = risks\n`, "reask.prose");
    const right = [{ title: "Outage", severity: "high" }];
    const run = await runScripted(
      program,
      {},
      {
        answers: {
          risks: turns(
            toolCall("answer", { answer: [{ title: "Outage", severity: "severe" }] }),
            toolCall("answer", { answer: right }),
          ),
        },
      },
    );
    expect(run.outputs).toEqual({ risks: right });
    expect(run.requests).toHaveLength(2);
    expect(
      run.events.flatMap((event) => (event.type === "unexpected-answer" ? [[event.problem, event.action]] : [])),
    ).toEqual([["shape", "reask"]]);
    // The corrective turn quotes what failed.
    expect(run.requests[1]!.prompt).toContain('[0].severity must be one of "low", "high"');
  });

  it("never right: the step fails after the limit quoting every answer, and a catch around it runs", async () => {
    const program = await compile(
      `try:
  let risks = session "List the risks in the plan"
    returns: { title: string }[]
  output outcome = "listed"
catch as failure:
  output outcome = "caught: {failure}"
`,
      "caught.prose",
    );
    const wrong = toolCall("answer", { answer: "no list" });
    const run = await runScripted(program, {}, { answers: { risks: turns(wrong, wrong, wrong) }, reasks: 2 });
    const outcome = String((run.outputs as { outcome: string }).outcome);
    expect(outcome).toMatch(/^caught: /);
    expect(outcome).toContain("did not match the session's `returns:` type after 3 answers");
    expect(outcome.match(/answer \d: "\{\\"answer\\":\\"no list\\"\}"/g)).toHaveLength(3);
    expect(run.requests).toHaveLength(3);
  });

  it("a loop over a typed list makes no extraction call; the same program without returns: makes one", async () => {
    // Text that is neither JSON nor a markdown list: without `returns:` only the model can read it as a list.
    const prose = "The plan risks an outage and also data loss.";
    const typed = await compile(LOOP("  returns: [{ title: string }]"), "typed-loop.prose");
    const text = await compile(LOOP(""), "text-loop.prose");
    const typedRun = await runScripted(typed, {});
    const textRun = await runScripted(text, {}, { answers: { risks: prose } });
    const extractions = (run: typeof typedRun) => run.requests.filter((request) => request.step.kind === "extract");
    expect(extractions(typedRun)).toHaveLength(0);
    expect(typedRun.outputs).toEqual({ fixes: [expect.any(String), expect.any(String)] });
    expect(extractions(textRun).length).toBeGreaterThanOrEqual(1);
    expect(textRun.events.some((event) => event.type === "extraction" && event.method !== "parse")).toBe(true);
    // The typed item is interpolated as JSON.
    expect(typedRun.requests[1]!.prompt).toMatch(/Fix \{\s*"title": "title"\s*\}/);
  });
});
