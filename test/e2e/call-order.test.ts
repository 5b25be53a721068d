/**
 * Exact call sequences: for every construct whose order is defined (a sequence of sessions, `repeat`,
 * `for`, `loop until`, `loop while`, try/catch/finally, `choice`, `if`/`elif`/`else`), a small program
 * is compiled with the compiler API, run with `concurrency: 1` against the fake Messages API, and the
 * ordered list of what the model was asked is compared with the expected one:
 * `session: <first line of the task>`, `judge: <condition>`, `choose: <criteria>`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ProseError } from "../../runtime/index.js";
import {
  askedText,
  lastUserText,
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import type { RunEvent } from "../../runtime/types.js";
import {
  callKind,
  choiceCriteria,
  choiceOptions,
  expectWithinBound,
  firstUserText,
  judgmentCondition,
  loadProgram,
  observedValues,
  TEST_API_KEY,
  temporaryFolder,
} from "./harness.js";
import { lines } from "../support/lines.js";

interface Script {
  /** Answers per condition, consumed in order; a condition asked once more than scripted fails the test. */
  readonly judgments?: Readonly<Record<string, readonly boolean[]>>;
  /** The option to take per choice criteria. */
  readonly choices?: Readonly<Record<string, string>>;
  /** Sessions whose task's first line is one of these fail with a non-retryable 400. */
  readonly failing?: readonly string[];
  /** Session replies by the task's first line (default `reply to: <first line>`). */
  readonly replies?: Readonly<Record<string, string>>;
}

interface Outcome {
  /** What the model was asked, in order. */
  readonly calls: string[];
  readonly requests: readonly FakeRequest[];
  readonly outputs?: Record<string, unknown>;
  readonly error?: unknown;
}

const firstLine = (text: string) => text.trim().split("\n")[0]!;

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let programs = 0;

async function run(source: string, script: Script = {}, inputs: Record<string, unknown> = {}): Promise<Outcome> {
  const remaining = new Map(
    Object.entries(script.judgments ?? {}).map(([condition, answers]) => [condition, [...answers]]),
  );
  const problems: string[] = [];
  const respond = (request: FakeRequest): FakeReply => {
    const kind = callKind(request);
    if (kind === "session") {
      const task = firstLine(firstUserText(request));
      if (script.failing?.includes(task)) return reply.error(400, { message: `scripted failure of ${task}` });
      return reply.text(script.replies?.[task] ?? `reply to: ${task}`);
    }
    if (kind === "judgment") {
      const condition = judgmentCondition(request);
      const answer = remaining.get(condition)?.shift();
      if (answer === undefined) problems.push(`unscripted judgment: ${condition}`);
      return reply.toolUse([{ name: "answer", input: { answer: answer ?? false, reason: "scripted" } }]);
    }
    if (kind === "choice") {
      const criteria = choiceCriteria(request);
      const option = script.choices?.[criteria];
      if (option === undefined || !choiceOptions(request).includes(option))
        problems.push(`unscripted choice: ${criteria}`);
      return reply.toolUse([
        { name: "answer", input: { answer: option ?? choiceOptions(request)[0], reason: "scripted" } },
      ]);
    }
    problems.push(`unexpected extraction: ${firstLine(askedText(request))}`);
    return reply.toolUse([{ name: "answer", input: { answer: null } }]);
  };
  server = await startFakeAnthropic({ respond });
  const program = await loadProgram(source, `order-${++programs}.prose`);
  const events: RunEvent[] = [];
  const options = {
    apiKey: TEST_API_KEY,
    baseURL: server.url,
    cwd: temporaryFolder("prosec-e2e-order-"),
    concurrency: 1,
    maxRetries: 0,
    retryDelayMs: 0,
    onEvent: (event: RunEvent) => events.push(event),
  };
  let outputs: Record<string, unknown> | undefined;
  let error: unknown;
  try {
    outputs = await program.run(inputs, options);
  } catch (caught) {
    error = caught;
  }
  expect(problems).toEqual([]);
  for (const [condition, answers] of remaining)
    expect(answers, `every scripted answer for "${condition}" is used`).toEqual([]);
  // Whatever path the run took, it stayed within the program's static bound.
  expectWithinBound(program.metadata.cost, server.requests, observedValues(program.metadata.cost, events, inputs));
  const calls = server.requests.map((request) => {
    const kind = callKind(request);
    if (kind === "session") return `session: ${firstLine(firstUserText(request))}`;
    if (kind === "judgment") return `judge: ${judgmentCondition(request)}`;
    if (kind === "choice") return `choose: ${choiceCriteria(request)}`;
    return `extract: ${firstLine(askedText(request))}`;
  });
  return { calls, requests: server.requests, outputs, error };
}

describe("sessions run in source order", () => {
  it("a sequence of sessions, each seeing the previous results", async () => {
    const outcome = await run(
      lines(
        'let topic = session "Pick a topic"',
        'let notes = session "Research {topic}"',
        'session "Summarise"',
        "  context: notes",
        'output report = session "Write the report"',
      ),
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome.calls).toEqual([
      "session: Pick a topic",
      "session: Research reply to: Pick a topic",
      "session: Summarise",
      "session: Write the report",
    ]);
    expect(outcome.outputs).toEqual({ report: "reply to: Write the report" });
  });
});

describe("fixed loops", () => {
  it("repeat N runs its body N times in order, numbering from 0", async () => {
    const outcome = await run(
      lines("repeat 3 as round:", '  session "Draft {round}"', '  session "Check {round}"', 'session "Done"'),
    );
    expect(outcome.calls).toEqual([
      "session: Draft 0",
      "session: Check 0",
      "session: Draft 1",
      "session: Check 1",
      "session: Draft 2",
      "session: Check 2",
      "session: Done",
    ]);
  });

  it("for runs once per item in list order, with the index", async () => {
    const outcome = await run(
      lines(
        'let items = ["alpha", "beta", "gamma"]',
        "for item, index in items:",
        '  session "Item {index}: {item}"',
        'session "Done"',
      ),
    );
    expect(outcome.calls).toEqual([
      "session: Item 0: alpha",
      "session: Item 1: beta",
      "session: Item 2: gamma",
      "session: Done",
    ]);
  });

  it("for over a session's markdown list reads the items without asking the model", async () => {
    const outcome = await run(
      lines('let parts = session "List the parts"', "for part in parts:", '  session "Build {part}"'),
      {
        replies: { "List the parts": "- wheels\n- frame\n- seat" },
      },
    );
    expect(outcome.calls).toEqual([
      "session: List the parts",
      "session: Build wheels",
      "session: Build frame",
      "session: Build seat",
    ]);
  });

  it("nested for loops run the inner loop completely for each outer item", async () => {
    const outcome = await run(lines('for a in ["x", "y"]:', "  for b in [1, 2]:", '    session "Pair {a}{b}"'));
    expect(outcome.calls).toEqual(["session: Pair x1", "session: Pair x2", "session: Pair y1", "session: Pair y2"]);
  });
});

describe("loop until **...** judges before each iteration (prose.md, Unbounded Loops)", () => {
  const source = lines(
    'session "Start"',
    "loop until **the draft is ready** (max: 5) as attempt:",
    '  session "Improve draft {attempt}"',
    'session "Publish"',
  );

  it("asks first; the body runs while the answer is no, a yes ends the loop", async () => {
    const outcome = await run(source, { judgments: { "the draft is ready": [false, false, true] } });
    expect(outcome.calls).toEqual([
      "session: Start",
      "judge: the draft is ready",
      "session: Improve draft 0",
      "judge: the draft is ready",
      "session: Improve draft 1",
      "judge: the draft is ready",
      "session: Publish",
    ]);
  });

  it("a yes at the first judgment runs the body not at all", async () => {
    const outcome = await run(source, { judgments: { "the draft is ready": [true] } });
    expect(outcome.calls).toEqual(["session: Start", "judge: the draft is ready", "session: Publish"]);
  });

  it("stops after max iterations when the answer stays no", async () => {
    const outcome = await run(
      lines("loop until **the draft is ready** (max: 2):", '  session "Improve"', 'session "Publish"'),
      {
        judgments: { "the draft is ready": [false, false] },
      },
    );
    expect(outcome.calls).toEqual([
      "judge: the draft is ready",
      "session: Improve",
      "judge: the draft is ready",
      "session: Improve",
      "session: Publish",
    ]);
  });

  it("sees the body's bindings in the judgment", async () => {
    const outcome = await run(lines("loop until **the draft is ready** (max: 3):", '  let draft = session "Write"'), {
      judgments: { "the draft is ready": [false, true] },
    });
    expect(outcome.calls).toEqual(["judge: the draft is ready", "session: Write", "judge: the draft is ready"]);
    expect(lastUserText(outcome.requests[2]!)).toContain("### draft\n\nreply to: Write");
  });
});

describe("loop while **...** judges before each iteration", () => {
  const source = lines(
    "loop while **there are open questions** (max: 5) as attempt:",
    '  session "Answer question {attempt}"',
    'session "Wrap up"',
  );

  it("asks first; the body runs while the answer is yes", async () => {
    const outcome = await run(source, { judgments: { "there are open questions": [true, true, false] } });
    expect(outcome.calls).toEqual([
      "judge: there are open questions",
      "session: Answer question 0",
      "judge: there are open questions",
      "session: Answer question 1",
      "judge: there are open questions",
      "session: Wrap up",
    ]);
  });

  it("a no at the first judgment skips the body", async () => {
    const outcome = await run(source, { judgments: { "there are open questions": [false] } });
    expect(outcome.calls).toEqual(["judge: there are open questions", "session: Wrap up"]);
  });

  it("stops after max iterations without asking again", async () => {
    const outcome = await run(
      lines("loop while **there are open questions** (max: 2):", '  session "Answer"', 'session "Wrap up"'),
      {
        judgments: { "there are open questions": [true, true] },
      },
    );
    expect(outcome.calls).toEqual([
      "judge: there are open questions",
      "session: Answer",
      "judge: there are open questions",
      "session: Answer",
      "session: Wrap up",
    ]);
  });
});

describe("try / catch / finally", () => {
  const source = lines(
    "try:",
    '  session "Step one"',
    '  session "Risky step"',
    '  session "Step three"',
    "catch as err:",
    '  session "Handle the failure"',
    "    context: err",
    "finally:",
    '  session "Clean up"',
    'output status = session "Report"',
  );

  it("success: try, then finally; catch never runs", async () => {
    const outcome = await run(source);
    expect(outcome.error).toBeUndefined();
    expect(outcome.calls).toEqual([
      "session: Step one",
      "session: Risky step",
      "session: Step three",
      "session: Clean up",
      "session: Report",
    ]);
  });

  it("a session failing with a non-retryable 400: try until the failure, catch, finally, then on", async () => {
    const outcome = await run(source, { failing: ["Risky step"] });
    expect(outcome.error).toBeUndefined();
    expect(outcome.calls).toEqual([
      "session: Step one",
      "session: Risky step",
      "session: Handle the failure",
      "session: Clean up",
      "session: Report",
    ]);
    // The 400 was sent once (maxRetries: 0), and catch saw the error.
    expect(outcome.requests.filter((request) => firstLine(firstUserText(request)) === "Risky step")).toHaveLength(1);
    expect(lastUserText(outcome.requests[2]!)).toContain("scripted failure of Risky step");
    expect(outcome.outputs).toEqual({ status: "reply to: Report" });
  });

  it("retry: N attempts the failing session N more times before catch", async () => {
    const outcome = await run(
      lines(
        "try:",
        '  session "Flaky step"',
        "    retry: 2",
        "catch:",
        '  session "Give up"',
        "finally:",
        '  session "Clean up"',
      ),
      { failing: ["Flaky step"] },
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome.calls).toEqual([
      "session: Flaky step",
      "session: Flaky step",
      "session: Flaky step",
      "session: Give up",
      "session: Clean up",
    ]);
  });

  it("without catch, finally runs and the failure propagates as a located ProseError", async () => {
    const outcome = await run(
      lines(
        'session "Before"',
        "try:",
        '  session "Risky step"',
        "finally:",
        '  session "Clean up"',
        'session "Never"',
      ),
      { failing: ["Risky step"] },
    );
    expect(outcome.calls).toEqual(["session: Before", "session: Risky step", "session: Clean up"]);
    expect(outcome.error).toBeInstanceOf(ProseError);
    expect((outcome.error as ProseError).line).toBe(3);
  });

  it("a failure inside catch still runs finally, then propagates", async () => {
    const outcome = await run(
      lines(
        "try:",
        '  session "Risky step"',
        "catch:",
        '  session "Fallback"',
        "finally:",
        '  session "Clean up"',
        'session "Never"',
      ),
      {
        failing: ["Risky step", "Fallback"],
      },
    );
    expect(outcome.calls).toEqual(["session: Risky step", "session: Fallback", "session: Clean up"]);
    expect(outcome.error).toBeInstanceOf(ProseError);
    expect((outcome.error as ProseError).line).toBe(4);
  });

  it("a throw in try goes to catch with its message; nested try rethrows to the outer catch", async () => {
    const outcome = await run(
      lines(
        "try:",
        "  try:",
        '    session "Inner work"',
        '    throw "inner problem"',
        "  catch as inner:",
        '    session "Inner handler"',
        "    throw",
        "  finally:",
        '    session "Inner cleanup"',
        "catch as outer:",
        '  session "Outer handler"',
        "    context: outer",
      ),
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome.calls).toEqual([
      "session: Inner work",
      "session: Inner handler",
      "session: Inner cleanup",
      "session: Outer handler",
    ]);
    expect(lastUserText(outcome.requests[3]!)).toContain("inner problem");
  });
});

describe("choice **...**", () => {
  const source = lines(
    'let report = session "Assess the incident"',
    "choice **how severe the incident is**:",
    '  option "Critical":',
    '    session "Page the on-call engineer"',
    '    session "Open an incident channel"',
    '  option "Minor":',
    '    session "File a ticket"',
    '  option "Noise":',
    '    session "Close the alert"',
    'session "Write the summary"',
  );

  it("asks once with the options in source order, then runs only the chosen option's body", async () => {
    const outcome = await run(source, { choices: { "how severe the incident is": "Critical" } });
    expect(outcome.calls).toEqual([
      "session: Assess the incident",
      "choose: how severe the incident is",
      "session: Page the on-call engineer",
      "session: Open an incident channel",
      "session: Write the summary",
    ]);
    expect(choiceOptions(outcome.requests[1]!)).toEqual(["Critical", "Minor", "Noise"]);
  });

  it("a later option", async () => {
    const outcome = await run(source, { choices: { "how severe the incident is": "Noise" } });
    expect(outcome.calls).toEqual([
      "session: Assess the incident",
      "choose: how severe the incident is",
      "session: Close the alert",
      "session: Write the summary",
    ]);
  });

  it("nested choices are asked only on the path taken", async () => {
    const outcome = await run(
      lines(
        "choice **the kind of request**:",
        '  option "Bug":',
        "    choice **how urgent the bug is**:",
        '      option "Now":',
        '        session "Fix it now"',
        '      option "Later":',
        '        session "Schedule the fix"',
        '  option "Feature":',
        '    session "Plan the feature"',
      ),
      { choices: { "the kind of request": "Bug", "how urgent the bug is": "Later" } },
    );
    expect(outcome.calls).toEqual([
      "choose: the kind of request",
      "choose: how urgent the bug is",
      "session: Schedule the fix",
    ]);
  });
});

describe("if / elif / else with **...** conditions", () => {
  const source = lines(
    'session "Run the checks"',
    "if **security issues were found**:",
    '  session "Fix security"',
    "elif **performance issues were found**:",
    '  session "Fix performance"',
    "elif **style issues were found**:",
    '  session "Fix style"',
    "else:",
    '  session "Approve"',
    'session "Report"',
  );

  it("a yes on the first condition runs its branch and asks nothing more", async () => {
    const outcome = await run(source, { judgments: { "security issues were found": [true] } });
    expect(outcome.calls).toEqual([
      "session: Run the checks",
      "judge: security issues were found",
      "session: Fix security",
      "session: Report",
    ]);
  });

  it("conditions are asked in order until one is yes", async () => {
    const outcome = await run(source, {
      judgments: { "security issues were found": [false], "performance issues were found": [true] },
    });
    expect(outcome.calls).toEqual([
      "session: Run the checks",
      "judge: security issues were found",
      "judge: performance issues were found",
      "session: Fix performance",
      "session: Report",
    ]);
  });

  it("all no: every condition asked once, then else", async () => {
    const outcome = await run(source, {
      judgments: {
        "security issues were found": [false],
        "performance issues were found": [false],
        "style issues were found": [false],
      },
    });
    expect(outcome.calls).toEqual([
      "session: Run the checks",
      "judge: security issues were found",
      "judge: performance issues were found",
      "judge: style issues were found",
      "session: Approve",
      "session: Report",
    ]);
  });

  it("nested ifs ask the inner condition only inside the taken branch", async () => {
    const outcome = await run(
      lines(
        "if **the request is authenticated**:",
        "  if **the user is an admin**:",
        '    session "Admin view"',
        "  else:",
        '    session "User view"',
        "else:",
        '    session "Login page"',
      ),
      { judgments: { "the request is authenticated": [true], "the user is an admin": [false] } },
    );
    expect(outcome.calls).toEqual([
      "judge: the request is authenticated",
      "judge: the user is an admin",
      "session: User view",
    ]);
  });

  it("a deterministic part that decides the condition skips the judgment", async () => {
    const outcome = await run(
      lines(
        "let count = 3",
        "if count > 5 and **the batch looks large**:",
        '  session "Split"',
        "elif count > 1 or **the batch is empty**:",
        '  session "Process"',
        "else:",
        '  session "Skip"',
      ),
    );
    expect(outcome.calls).toEqual(["session: Process"]);
  });

  it("a judgment inside a loop is asked once per iteration, in order", async () => {
    const outcome = await run(
      lines('for item in ["a", "b", "c"]:', "  if **{item} needs work**:", '    session "Work on {item}"'),
      {
        judgments: { "a needs work": [true], "b needs work": [false], "c needs work": [true] },
      },
    );
    expect(outcome.calls).toEqual([
      "judge: a needs work",
      "session: Work on a",
      "judge: b needs work",
      "judge: c needs work",
      "session: Work on c",
    ]);
  });
});
