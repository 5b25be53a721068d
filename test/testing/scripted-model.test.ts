/**
 * `prosec/testing` under vitest: a compiled program (sessions with a real tool loop, a `parallel:`
 * block, a judged loop that calls another program, a choice, a list the model must read) runs on the
 * real runtime against a scripted model. The tests assert the outputs, what each judgment and
 * session received, and the failures a script can cause, each naming the `.prose` line.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ProseError } from "../../runtime/index.js";
import { loadProgram, type ProgramModule } from "../../src/run/load-program.js";
import { runScripted, ScriptedModel, sequence, toolCall, turns } from "../../runtime/testing/index.js";
import { temporaryFolder } from "../runtime/helpers.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";

const REPORT = `use "./critique.prose" as critique

input topic: "The topic"

agent reader:
  permissions:
    read: ["notes/**"]

let notes = session: reader
  prompt: "Read notes/facts.md and summarise it for {topic}."

parallel:
  pros = session "List the pros of {topic}"
  cons = session "List the cons of {topic}"

let draft = session "Write about {topic}"
  context: { notes, pros, cons }

loop until **the draft is ready to publish** (max: 3):
  let review = critique(draft: draft)
  draft = session "Revise the draft"
    context: { draft, feedback: review.feedback }

choice **how risky {topic} is**:
  option "Critical":
    let verdict = session "Escalate {topic}"
  option "Minor":
    let verdict = session "Note {topic} for later"

let points = session "Name the points to expand"
let expanded = []
for point in points:
  let part = session "Expand {point}"
  expanded = expanded + [part]

output report = draft
output verdict = verdict
output expanded = expanded
`;

const CRITIQUE = `input draft: "The draft"

output feedback = session "Review this draft"
  context: draft
`;

let project: string;
let report: ProgramModule;

async function compile(source: string, name = "report.prose"): Promise<ProgramModule> {
  writeFileSync(join(project, name), source);
  const loaded = await loadProgram(name, { cwd: project });
  if (loaded.module === undefined) throw new Error(JSON.stringify(loaded.files.map((file) => file.diagnostics)));
  return loaded.module;
}

beforeAll(async () => {
  requireBuiltRuntime();
  project = temporaryFolder("prosec-scripted-");
  mkdirSync(join(project, "notes"));
  writeFileSync(join(project, "notes/facts.md"), "Tides rise twice a day.\n");
  writeFileSync(join(project, "secret.txt"), "do not read\n");
  writeFileSync(join(project, "critique.prose"), CRITIQUE);
  report = await compile(REPORT);
});

const answers = {
  notes: turns(
    toolCall("read_file", { path: "secret.txt" }),
    toolCall("read_file", { path: "notes/facts.md" }),
    "NOTES: two tides a day",
  ),
  pros: "PROS",
  cons: "CONS",
  draft: "DRAFT-1",
  "session@21:11": "DRAFT-2",
  "**ready to publish**": sequence(false, true),
  "critique/feedback": "FEEDBACK: shorter",
  "**how risky**": "minor",
  points: "the first point, then the second",
  "extract@32:14": ["alpha", "beta"],
};

describe("prosec/testing under vitest", () => {
  it("runs the real runtime against the answers and records what every step received", async () => {
    const run = await runScripted(report, { topic: "tidal power" }, { answers, cwd: project });
    expect(run.outputs).toEqual({
      report: "DRAFT-2",
      verdict: "scripted reply: verdict",
      expanded: ["scripted reply: part", "scripted reply: part"],
    });
    expect(run.unusedAnswers).toEqual([]);

    // The tool loop ran for real: the read outside `read:` was refused, the allowed one read the file.
    const notes = run.requestsFor("notes");
    expect(notes.map((request) => request.turn)).toEqual([0, 1, 2]);
    expect(notes[0]!.prompt).toContain("Read notes/facts.md and summarise it for tidal power.");
    expect(notes[0]!.tools).toContain("read_file");
    expect(notes[1]!.prompt).toMatch(/secret\.txt/);
    expect(notes[1]!.prompt).not.toContain("do not read");
    expect(notes[2]!.prompt).toContain("Tides rise twice a day.");

    // What each judgment saw: the draft of its iteration, and after one round the critique's feedback.
    const judged = run.requestsFor("**the draft is ready to publish**");
    expect(judged).toHaveLength(2);
    expect(judged[0]!.prompt).toContain("Condition: the draft is ready to publish");
    expect(judged[0]!.prompt).toContain("DRAFT-1");
    expect(judged[0]!.prompt).not.toContain("FEEDBACK");
    expect(judged[1]!.prompt).toContain("DRAFT-2");
    expect(judged[1]!.prompt).toContain("FEEDBACK: shorter");
    expect(judged[0]!.step).toMatchObject({ kind: "judge", at: { line: 19, column: 12 }, program: "report" });
    expect(
      run.events.filter((event) => event.type === "judgment").map((event) => event.type === "judgment" && event.answer),
    ).toEqual(["no", "yes", "Minor"]);

    // Sessions stream from the scripted model as from a server: their text arrives in delta events,
    // tool turns included, and judgments are sent whole.
    const streamed = run.events.flatMap((event) => (event.type === "delta" ? [event] : []));
    expect(streamed.filter((event) => event.label.startsWith("Read notes")).map((event) => event.text)).toEqual([
      "NOTES: two tides a day",
    ]);
    expect(run.requests.filter((request) => request.body["stream"] === true)).toHaveLength(
      run.requests.filter((request) => request.step.kind === "session").length,
    );

    // The called program's session got the first draft; the revision got the feedback.
    const reviews = run.requestsFor("critique/feedback");
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.step).toMatchObject({ program: "critique", source: "critique.prose", binding: "feedback" });
    expect(reviews[0]!.prompt).toContain("DRAFT-1");
    expect(run.requestsFor("session@21:11")[0]!.prompt).toContain("FEEDBACK: shorter");

    // The parallel branches and the brief: the brief saw all three notes.
    expect(run.requestsFor("draft")[0]!.prompt).toEqual(expect.stringContaining("NOTES: two tides a day"));
    for (const text of ["PROS", "CONS"]) expect(run.requestsFor("draft")[0]!.prompt).toContain(text);

    // The choice listed its options; the list was read by the model, and each item was expanded.
    expect(run.requestsFor("**how risky**")[0]!.prompt).toContain("how risky tidal power is");
    expect(run.requestsFor("**how risky**")[0]!.prompt).toMatch(/1\. Critical\n2\. Minor/);
    expect(run.requestsFor("extract@32:14")[0]!.prompt).toContain("the first point, then the second");
    expect(run.requestsFor("part").map((request) => request.prompt.split("\n")[0])).toEqual([
      "Expand alpha",
      "Expand beta",
    ]);
    expect(run.requests.every((request) => request.step.key.length > 0 && request.step.anchor.length > 0)).toBe(true);
  });

  it("uses defaults for steps no answer names, and lists answers no step used", async () => {
    const run = await runScripted(
      report,
      { topic: "wind" },
      {
        answers: { "**how risky**": "Critical", pints: "typo" },
        defaults: { session: "- one\n- two", judge: true },
        cwd: project,
      },
    );
    // The loop's condition held at once (the default), so no review ran and the draft is the first reply.
    expect(run.outputs).toEqual({
      report: "- one\n- two",
      verdict: "- one\n- two",
      expanded: ["- one\n- two", "- one\n- two"],
    });
    expect(run.requestsFor("critique/feedback")).toEqual([]);
    expect(run.requestsFor("extract@32:14")).toEqual([]); // a markdown list needs no model
    expect(run.unusedAnswers).toEqual(["pints"]);
    const byFunction = await runScripted(
      report,
      { topic: "wind" },
      {
        defaults: (step) =>
          step.kind === "judge"
            ? true
            : step.kind === "choose"
              ? "Critical"
              : step.kind === "extract"
                ? ["only"]
                : `${step.kind} at ${step.at.line}`,
        cwd: project,
      },
    );
    expect(byFunction.outputs).toEqual({
      report: "session at 16",
      verdict: "session at 26",
      expanded: ["session at 33"],
    });
    expect(byFunction.requestsFor("part")[0]!.prompt).toMatch(/^Expand only/);
  });

  it("fails a strict run at the first step no answer names, with its .prose line", async () => {
    const model = new ScriptedModel({ answers: { notes: "N", pros: "P" }, strict: true });
    const error = await report.run({ topic: "x" }, model.options({ cwd: project })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as ProseError).name).toBe("ProseError");
    expect((error as Error).message).toMatch(
      /^report\.prose:14:10: .*No scripted answer names this session \(cons\), and the script is strict/,
    );
    // `pros` runs beside `cons` and may or may not have asked before the run stopped.
    const asked = model.requests.map((request) => request.step.binding);
    expect(asked[0]).toBe("notes");
    expect(asked).not.toContain("cons");
  });

  it("fails when a sequence runs out or a session asks for more turns than scripted", async () => {
    const spent = await runScripted(
      report,
      { topic: "x" },
      { answers: { "**ready to publish**": sequence(false) }, cwd: project },
    ).catch((caught: unknown) => caught as Error);
    expect((spent as Error).message).toMatch(
      /^report\.prose:19:12: .*"\*\*ready to publish\*\*" is a sequence of 1, and the step was reached a 2nd time/,
    );
    const short = await runScripted(
      report,
      { topic: "x" },
      { answers: { notes: turns(toolCall("read_file", { path: "notes/facts.md" })) }, cwd: project },
    ).catch((caught: unknown) => caught as Error);
    expect((short as Error).message).toMatch(
      /^report\.prose:9:13: .*scripted turns of the session at report\.prose:9:13 ran out after 1/,
    );
  });

  it("keeps answering by binding and condition after lines are added above the steps, with the same anchors", async () => {
    const before = await runScripted(
      report,
      { topic: "t" },
      { answers: { draft: "D", "**ready to publish**": true }, cwd: project },
    );
    const edited = await compile(
      `# A comment added at the top.\n\n${REPORT.replace("let draft", "# Why the draft:\n\nlet draft")}`,
      "edited.prose",
    );
    const after = await runScripted(
      edited,
      { topic: "t" },
      { answers: { draft: "D", "**ready to publish**": true }, cwd: project },
    );
    expect(after.outputs).toEqual(before.outputs);
    const steps = (run: typeof before) =>
      run.requests.filter((request) => request.turn === 0).map((request) => request.step);
    expect(steps(after).map((step) => step.anchor)).toEqual(steps(before).map((step) => step.anchor));
    expect(steps(after).map((step) => step.key)).not.toEqual(steps(before).map((step) => step.key));
  });
});
