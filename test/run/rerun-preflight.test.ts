/**
 * The check before a resumed run's first request (runtime/run/rerun-preflight.ts): which sessions
 * with finished commands refuse the resume at once. The CLI drives it in rerun-guard.slow.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { FinishedWork } from "../../runtime/durable/file-journal.js";
import { refusalBeforeResume } from "../../runtime/run/rerun-preflight.js";
import type { ProgramInfo } from "../../runtime/index.js";

const WORK = `agent worker:
  model: sonnet

let plan = session "Plan the work"
output done = session: worker
  prompt: "Do the work"
  context: plan
`;

function program(text: string, source = "work.prose", uses?: ProgramInfo["uses"]): ProgramInfo {
  return {
    name: source.replace(".prose", ""),
    source,
    sourceHash: text,
    compilerVersion: "0",
    inputs: [],
    outputs: [],
    text,
    ...(uses === undefined ? {} : { uses }),
  };
}

/** The worker session (line 5 of WORK), its two commands finished. */
const session: FinishedWork = {
  site: "/session@5:15#0",
  structure: "/session:done#0",
  effects: ["run_command `make`", "run_command `make deploy`"],
  model: { name: "sonnet", id: "claude-sonnet" },
  agent: "worker",
  latestText: true,
  underWay: true,
};

const sonnet = (name: string | undefined): string => (name === "sonnet" ? "claude-sonnet" : "claude-default");

function check(now: string, work: FinishedWork = session, modelOf = sonnet) {
  return refusalBeforeResume([work], {
    program: program(now),
    previous: now === WORK ? undefined : WORK,
    earlierTexts: new Map(),
    modelOf,
  })?.message;
}

describe("refused before the first request", () => {
  it("nothing changed, or an edit elsewhere: a comment, another prompt, lines moved", () => {
    expect(check(WORK)).toBeUndefined();
    expect(check(`# A comment.\n\n${WORK}`)).toBeUndefined();
    expect(check(WORK.replace("Plan the work", "Plan the work well"))).toBeUndefined();
    expect(check(`let first = session "Look around"\n${WORK}`)).toBeUndefined();
  });

  it("its model resolves to another id: says from which to which", () => {
    expect(check(WORK, session, () => "claude-other")).toContain(
      "since its model changed (claude-sonnet → claude-other) after these tool calls finished: run_command `make`, run_command `make deploy`",
    );
  });

  it("its own statement edited in place, with the line it has now", () => {
    const message = check(`# moved\n${WORK.replace("Do the work", "Do the work now")}`);
    expect(message).toContain("work.prose:6:1");
    expect(message).toContain("since its statement changed");
    expect(check(WORK.replace("  context: plan\n", ""))).toContain("since its statement changed");
  });

  it("its agent's definition edited; a session removed is not run again, so not refused; one replaced is", () => {
    expect(check(WORK.replace("model: sonnet", 'model: sonnet\n  prompt: "Be careful."'))).toContain(
      "since the definition of its agent worker changed",
    );
    expect(check(WORK.replace(/output done[\s\S]*$/, ""))).toBeUndefined();
    // In its place, bound to the same name: the resume would run it as that session, again.
    expect(check(WORK.replace(/output done[\s\S]*$/, 'output done = session "Nothing"\n'))).toContain(
      "since its statement changed",
    );
  });

  it("a session of a used program: its statement in that program's recorded text", () => {
    const used = program(WORK, "tools.prose");
    const main = `use "./tools.prose" as tools\n\noutput result = tools()\n`;
    const work: FinishedWork = { ...session, site: "/use:tools@3:17#0/session@5:15#0" };
    const edited = program(WORK.replace("Do the work", "Do the work now"), "tools.prose");
    const refusal = refusalBeforeResume([work], {
      program: program(main, "work.prose", { tools: edited }),
      previous: undefined,
      earlierTexts: new Map([["tools.prose", used.text!]]),
      modelOf: sonnet,
    });
    expect(refusal?.message).toContain("tools.prose:5:1");
    expect(
      refusalBeforeResume([work], {
        program: program(main, "work.prose", { tools: used }),
        previous: undefined,
        earlierTexts: new Map(),
        modelOf: sonnet,
      }),
    ).toBeUndefined();
  });
});
