/**
 * `return`, `break` and `continue` run as DIALECT.md says ("Statements beyond the grammar"): each
 * program is compiled, run against the fake Messages API, and judged by what was asked and returned.
 */
import { afterEach, describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { reply, startFakeAnthropic, type FakeRequest, type FakeServer } from "../support/fake-anthropic.js";
import {
  callKind,
  choiceCriteria,
  choiceEnum,
  firstUserText,
  judgmentCondition,
  loadProgram,
  TEST_API_KEY,
  temporaryFolder,
} from "./harness.js";
import { PARTS_PROGRAM } from "./parts-program.js";
import { lines } from "../support/lines.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let programs = 0;

/**
 * Runs `source`: sessions reply `R(<task>)`, judgments answer from `answers` by condition in order
 * (then false), choices take the option `choices` names. Returns what was asked and the outputs.
 */
async function run(
  source: string,
  answers: Record<string, boolean[]> = {},
  choices: Record<string, string[]> = {},
): Promise<{ asked: string[]; outputs: Record<string, unknown>; final: unknown }> {
  const respond = (request: FakeRequest) => {
    const kind = callKind(request);
    if (kind === "session") return reply.text(`R(${taskLine(request)})`);
    if (kind === "choice") {
      const label = choices[choiceCriteria(request)]?.shift();
      const option = choiceEnum(request).find((text) => text.endsWith(` ${label}`));
      return reply.toolUse([{ name: "answer", input: { answer: option, reason: "scripted" } }]);
    }
    const answer = answers[judgmentCondition(request)]?.shift() ?? false;
    return reply.toolUse([{ name: "answer", input: { answer, reason: "scripted" } }]);
  };
  server = await startFakeAnthropic({ respond });
  const program = await loadProgram(source, `jumps-${++programs}.prose`);
  let final: unknown;
  const outputs = await program.run(
    {},
    {
      apiKey: TEST_API_KEY,
      baseURL: server.url,
      cwd: temporaryFolder("prosec-e2e-jumps-"),
      concurrency: 1,
      maxRetries: 0,
      onEvent: (event: { type: string; result?: unknown }) => {
        if (event.type === "run-end") final = event.result;
      },
    },
  );
  const asked = server.requests.map((request) =>
    callKind(request) === "session"
      ? taskLine(request)
      : callKind(request) === "choice"
        ? `choose ${choiceCriteria(request)}`
        : `judge ${judgmentCondition(request)}`,
  );
  return { asked, outputs, final };
}

/** A session's task line (after a block call's execution scope, when there is one). */
function taskLine(request: FakeRequest): string {
  const parts = firstUserText(request).split("\n\n");
  return (parts.find((part) => !part.startsWith("Execution scope:")) ?? "").split("\n")[0]!;
}

describe("return", () => {
  it("at top level, after an output inside an `if`, ends the program with the outputs set so far", async () => {
    const source = lines(
      'let draft = session "Draft"',
      "if **there is nothing to review**:",
      '  output report = { status: "skipped", reason: "empty draft" }',
      "  return",
      'output report = session "Review"',
      'output score = session "Score"',
    );
    const early = await run(source, { "there is nothing to review": [true] });
    expect(early.asked).toEqual(["Draft", "judge there is nothing to review"]);
    expect(early.outputs).toEqual({ report: { status: "skipped", reason: "empty draft" }, score: null });
    const late = await run(source, { "there is nothing to review": [false] });
    expect(late.asked).toEqual(["Draft", "judge there is nothing to review", "Review", "Score"]);
    expect(late.outputs).toEqual({ report: "R(Review)", score: "R(Score)" });
  });

  it("at top level of a program run in parts (over 150 statements), ends it from inside a part", async () => {
    const early = await run(PARTS_PROGRAM, { "stop early": [true] });
    expect(early.asked).toEqual(["First", "judge stop early"]);
    expect(early.outputs).toEqual({ first: "R(First)", second: null });
    const late = await run(PARTS_PROGRAM, { "stop early": [false] });
    expect(late.outputs).toEqual({ first: "R(First)", second: "R(Second)" });
  });

  it("inside a block ends that call with `null`; the caller goes on", async () => {
    const { asked, outputs } = await run(
      lines(
        "block check(x):",
        '  session "Check {x}"',
        '  if x == "skip":',
        "    return",
        '  output session "Deep check {x}"',
        'let a = do check("skip")',
        'let b = do check("go")',
        "output result = [a, b]",
      ),
    );
    expect(asked).toEqual(["Check skip", "Check go", "Deep check go"]);
    expect(outputs).toEqual({ result: [null, "R(Deep check go)"] });
  });

  it("inside a loop inside a `try:` runs `finally:` on the way out, and ends a program without outputs", async () => {
    const { asked } = await run(
      lines(
        "try:",
        "  repeat 3 as i:",
        '    session "Step {i}"',
        "    if i == 1:",
        "      return",
        "finally:",
        '  session "Clean up"',
        'session "Never"',
      ),
    );
    expect(asked).toEqual(["Step 0", "Step 1", "Clean up"]);
  });
});

describe("break", () => {
  it("inside `loop:` after a judged check leaves the loop, and what follows runs", async () => {
    const { asked, outputs } = await run(
      lines(
        "loop (max: 5) as round:",
        '  let attempt = session "Attempt {round}"',
        "  if **the attempt works**:",
        "    break",
        '  session "Learn from {round}"',
        'output summary = session "Summarise"',
      ),
      { "the attempt works": [false, true] },
    );
    expect(asked).toEqual([
      "Attempt 0",
      "judge the attempt works",
      "Learn from 0",
      "Attempt 1",
      "judge the attempt works",
      "Summarise",
    ]);
    expect(outputs).toEqual({ summary: "R(Summarise)" });
  });

  it("inside a `choice` option leaves the loop, not the choice", async () => {
    const { asked } = await run(
      lines(
        'for topic in ["a", "b", "c"]:',
        "  choice **what next**:",
        '    option "stop":',
        "      break",
        '    option "go on":',
        '      session "Work on {topic}"',
        'session "Done"',
      ),
      {},
      { "what next": ["go on", "stop", "go on"] },
    );
    expect(asked).toEqual(["choose what next", "Work on a", "choose what next", "Done"]);
  });

  it("inside a `try:` in a `repeat` runs `finally:` first", async () => {
    const { asked } = await run(
      lines(
        "repeat 3 as i:",
        "  try:",
        "    if i == 1:",
        "      break",
        '    session "Step {i}"',
        "  finally:",
        '    session "Tidy {i}"',
        'session "After"',
      ),
    );
    expect(asked).toEqual(["Step 0", "Tidy 0", "Tidy 1", "After"]);
  });
});

describe("continue", () => {
  it("starts a `for` loop's next iteration; the skipped iteration's result is `null`", async () => {
    const { asked, outputs } = await run(
      lines(
        'let results = for topic in ["a", "b", "c"]:',
        '  if topic == "b":',
        "    continue",
        '  session "Work on {topic}"',
        "output results = results",
      ),
    );
    expect(asked).toEqual(["Work on a", "Work on c"]);
    expect(outputs).toEqual({ results: ["R(Work on a)", null, "R(Work on c)"] });
  });

  it("in `loop until` judges the condition before the next iteration", async () => {
    const { asked } = await run(
      lines(
        "loop until **it is done** (max: 3) as round:",
        "  if round == 0:",
        "    continue",
        '  session "Round {round}"',
      ),
      { "it is done": [false, false, true] },
    );
    expect(asked).toEqual(["judge it is done", "judge it is done", "Round 1", "judge it is done"]);
  });

  it("ends a pipeline item: a `map` item gives `null`, a `filter` item is dropped, a `reduce` step keeps the accumulator", async () => {
    const { asked, outputs } = await run(
      lines(
        'let xs = ["a", "skip", "b"]',
        "output mapped = xs | map:",
        '  if item == "skip":',
        "    continue",
        '  "<{item}>"',
        "output kept = xs | filter:",
        '  if item == "skip":',
        "    continue",
        "  true",
        "output joined = xs | reduce(acc, x):",
        '  if x == "skip":',
        "    continue",
        '  acc + "+" + x',
      ),
    );
    expect(asked).toEqual([]);
    expect(outputs).toEqual({ mapped: ["<a>", null, "<b>"], kept: ["a", "b"], joined: "a+b" });
  });

  it("ends a `parallel for` or `pmap` item with `null`", async () => {
    const { asked, outputs } = await run(
      lines(
        'let xs = ["a", "skip", "b"]',
        "output each = parallel for x in xs:",
        '  if x == "skip":',
        "    continue",
        '  session "Work on {x}"',
        "output mapped = xs | pmap:",
        '  if item == "skip":',
        "    continue",
        '  "<{item}>"',
      ),
    );
    expect(asked).toEqual(["Work on a", "Work on b"]);
    expect(outputs).toEqual({ each: ["R(Work on a)", null, "R(Work on b)"], mapped: ["<a>", null, "<b>"] });
  });
});

describe("jumps that cannot go where they say", () => {
  const errors = async (source: string) =>
    (await compile(source, "jumps.prose")).diagnostics
      .filter((diagnostic) => diagnostic.severity === "error")
      .map(
        (diagnostic) =>
          `${diagnostic.code} ${diagnostic.range.start.line}:${diagnostic.range.start.column} ${diagnostic.message}`,
      );

  it("`return` or `break` in a `parallel:` branch, `break` in an item, either outside a loop", async () => {
    expect(
      await errors(
        lines(
          "parallel:",
          "  a = do:",
          '    session "A"',
          "    return",
          "  b = do:",
          "    break",
          'for x in ["a"]:',
          "  parallel:",
          "    continue",
          '    session "B"',
          'let ys = ["a"] | map:',
          "  break",
          'let zs = ["a"] | pmap:',
          "  return",
          'parallel for y in ["a"]:',
          "  break",
          "break",
          "block f():",
          "  continue",
        ),
      ),
    ).toEqual([
      "P036 4:5 `return` cannot end the program or the block from inside a `parallel:` branch: the other branches and items run on",
      "P037 6:5 `break` cannot leave a `parallel:` branch, which runs independently of the others",
      "P037 9:5 `continue` cannot leave a `parallel:` branch, which runs independently of the others",
      "P037 12:3 `break` cannot leave a `map` item, which runs independently of the others",
      "P036 14:3 `return` cannot end the program or the block from inside a `pmap` item: the other branches and items run on",
      "P037 16:3 `break` cannot leave a `parallel for` item, which runs independently of the others",
      "P038 17:1 `break` outside a loop",
      "P038 19:3 `continue` outside a loop",
    ]);
  });

  it("where they may stand, they check clean", async () => {
    expect(await errors(lines("repeat 2:", "  break", "  continue", "return"))).toEqual([]);
  });
});

describe("a program without `output`: its final result counts transparent bodies (DIALECT.md)", () => {
  it("ends with an `if`: the branch's last result when it ran, else the result from before it", async () => {
    const source = lines(
      'session "Write the draft"',
      "if **extra is wanted**:",
      '  session "Add a summary"',
      "elif **a title is wanted**:",
      '  let title = session "Write a title"',
      "else:",
      "  if **never**:",
      '    session "Unreachable"',
    );
    const summary = await run(source, { "extra is wanted": [true] });
    expect(summary.final).toBe("R(Add a summary)");
    // A binding in the branch counts as it does at top level.
    const title = await run(source, { "extra is wanted": [false], "a title is wanted": [true] });
    expect(title.final).toBe("R(Write a title)");
    // A branch that ran but produced nothing leaves the value from before the `if`.
    const neither = await run(source);
    expect(neither.final).toBe("R(Write the draft)");
  });

  it("ends with a `choice`, and `try` then `catch` gives the catch's last value", async () => {
    const source = lines(
      'session "Draft"',
      "choice **tone**:",
      '  option "Formal":',
      '    session "Formal"',
      '  option "Plain":',
      "    assert true:",
      '      "always"',
    );
    const chosen = await run(source, {}, { tone: ["Formal"] });
    expect(chosen.final).toBe("R(Formal)");
    const plain = await run(source, {}, { tone: ["Plain"] });
    expect(plain.final).toBe("R(Draft)");
    const caught = await run(
      lines('session "Draft"', "try:", '  session "Try"', '  throw "no"', "catch:", '  session "Recover"'),
    );
    expect(caught.final).toBe("R(Recover)");
  });
});
