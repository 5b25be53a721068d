/**
 * A block's, branch's or item's value when it ends in an `if` or `choice`: their bodies are
 * transparent (DIALECT.md, as for a program's final result), so the value is the last value of the
 * body that ran, not `null`. Each program is compiled and run against the fake Messages API.
 */
import { afterEach, describe, expect, it } from "vitest";
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
import { lines } from "../support/lines.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let programs = 0;

/** Runs `source`: sessions reply `R(<task>)`, judgments say `answers[condition]`, choices take `choices[criteria]`. */
async function outputsOf(
  source: string,
  answers: Record<string, boolean> = {},
  choices: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const respond = (request: FakeRequest) => {
    const kind = callKind(request);
    if (kind === "session") return reply.text(`R(${taskLine(request)})`);
    if (kind === "choice") {
      const label = choices[choiceCriteria(request)];
      const option = choiceEnum(request).find((text) => text.endsWith(` ${label}`));
      return reply.toolUse([{ name: "answer", input: { answer: option, reason: "scripted" } }]);
    }
    return reply.toolUse([
      { name: "answer", input: { answer: answers[judgmentCondition(request)] ?? false, reason: "scripted" } },
    ]);
  };
  server = await startFakeAnthropic({ respond });
  const program = await loadProgram(source, `transparent-${++programs}.prose`);
  return program.run(
    {},
    { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-e2e-transparent-"), maxRetries: 0 },
  );
}

/** A session's task line (after a block call's execution scope, when there is one). */
function taskLine(request: FakeRequest): string {
  const parts = firstUserText(request).split("\n\n");
  return (parts.find((part) => !part.startsWith("Execution scope:")) ?? "").split("\n")[0]!;
}

describe("a value that ends in an `if` or `choice`", () => {
  it("is a block call's result: the last value of the body that ran", async () => {
    const outputs = await outputsOf(
      lines(
        "block pick(flag):",
        "  if flag:",
        '    session "Flagged"',
        "  else:",
        '    session "Plain"',
        "block opt():",
        '  let draft = session "Draft"',
        "  if **worth polishing**:",
        '    session "Polish"',
        "output yes = do pick(true)",
        "output no = do pick(false)",
        "output polished = do opt()",
      ),
      { "worth polishing": true },
    );
    expect(outputs).toEqual({ yes: "R(Flagged)", no: "R(Plain)", polished: "R(Polish)" });
  });

  it("keeps the value before it when no body gives one (an `if` that did not run)", async () => {
    const outputs = await outputsOf(
      lines(
        "block opt():",
        '  let draft = session "Draft"',
        "  if **worth polishing**:",
        '    session "Polish"',
        "output kept = do opt()",
      ),
      { "worth polishing": false },
    );
    expect(outputs).toEqual({ kept: "R(Draft)" });
  });

  it("is a `do:` body's, a parallel branch's and a `for` item's value; a `continue`d item is still null", async () => {
    const outputs = await outputsOf(
      lines(
        "let inline = do:",
        "  choice **which side**:",
        '    option "Left":',
        '      session "Go left"',
        '    option "Right":',
        '      session "Go right"',
        "parallel:",
        "  branch = do:",
        "    if true:",
        '      session "Branch"',
        '  other = session "Other"',
        'let notes = for topic in ["scope", "costs"]:',
        '  if topic == "costs":',
        "    continue",
        "  if true:",
        '    session "Notes on {topic}"',
        "output inline = inline",
        "output branch = branch",
        "output notes = notes",
      ),
      {},
      { "which side": "Right" },
    );
    expect(outputs).toEqual({
      inline: "R(Go right)",
      branch: "R(Branch)",
      notes: ["R(Notes on scope)", null],
    });
  });

  it("is a `map`, `filter` or `pmap` item's and a `reduce` step's value", async () => {
    const outputs = await outputsOf(
      lines(
        'let mapped = ["a", "b"] | map:',
        '  if item == "a":',
        '    session "Map {item}"',
        "  else:",
        '    "plain {item}"',
        'let folded = ["x", "y"] | reduce(acc, next):',
        "  if true:",
        '    "{acc}+{next}"',
        'let kept = ["a", "b", "c"] | filter:',
        '  if item == "a":',
        "    true",
        "  else:",
        '    item == "c"',
        'let fanned = ["p", "q"] | pmap:',
        '  if item == "p":',
        '    session "Fan {item}"',
        "output mapped = mapped",
        "output folded = folded",
        "output kept = kept",
        "output fanned = fanned",
      ),
    );
    expect(outputs).toEqual({
      mapped: ["R(Map a)", "plain b"],
      folded: "x+y",
      kept: ["a", "c"],
      fanned: ["R(Fan p)", null],
    });
  });

  it("keeps the value before an `if` that only leaves; a `break` there ends the loop with that value", async () => {
    const outputs = await outputsOf(
      lines(
        "block guard(x):",
        '  session "Guard {x}"',
        '  if x == "bad":',
        '    throw "bad"',
        "let drafts = loop (max: 3) as round:",
        '  let draft = session "Draft {round}"',
        "  if **good enough**:",
        "    break",
        "let counted = repeat 2 as i:",
        '  session "Count {i}"',
        "  if i == 5:",
        "    break",
        'let scanned = for x in ["a", "b", "c"]:',
        '  session "Scan {x}"',
        '  if x == "b":',
        "    break",
        'let items = ["a", "b"] | map:',
        '  session "Item {item}"',
        '  if item == "b":',
        "    continue",
        'output guarded = do guard("ok")',
        "output drafts = drafts",
        "output counted = counted",
        "output scanned = scanned",
        "output items = items",
      ),
      { "good enough": true },
    );
    expect(outputs).toEqual({
      guarded: "R(Guard ok)",
      drafts: "R(Draft 0)",
      counted: "R(Count 1)",
      scanned: ["R(Scan a)", "R(Scan b)"],
      items: ["R(Item a)", null],
    });
  });

  it("passes through a standing `try:` as through an `if`: a body that gives nothing keeps the value before it", async () => {
    const outputs = await outputsOf(
      lines(
        "block fetch(flaky):",
        '  session "Fetch"',
        "  try:",
        "    if flaky:",
        '      throw "later"',
        "  catch as e:",
        '    if e == "never":',
        '      session "Never"',
        "block fails():",
        '  session "Before"',
        "  try:",
        '    throw "down"',
        "  catch:",
        '    session "Handled"',
        "let rounds = loop (max: 2):",
        '  session "Round"',
        "  try:",
        "    if **stop**:",
        "      break",
        "  finally:",
        '    session "Cleanup"',
        "output calm = do fetch(false)",
        "output flaky = do fetch(true)",
        "output handled = do fails()",
        "output rounds = rounds",
      ),
      { stop: true },
    );
    expect(outputs).toEqual({ calm: "R(Fetch)", flaky: "R(Fetch)", handled: "R(Handled)", rounds: "R(Round)" });
  });
  it("drops what a failed `try:` body gave: a handler that gives nothing leaves the value before the `try:`", async () => {
    const program = lines(
      "block partial():",
      '  session "A"',
      "  try:",
      "    if **c**:",
      '      session "B"',
      '      throw "x"',
      "  catch:",
      "    if **d**:",
      '      session "C"',
      "let attempt = try:",
      "  if **c**:",
      '    session "B2"',
      '    throw "y"',
      "catch:",
      "  if **d**:",
      '    session "C2"',
      "let rounds = repeat 1 as i:",
      '  session "A {i}"',
      "  try:",
      '    session "B {i}"',
      '    throw "z"',
      "  catch as e:",
      "    if **d**:",
      '      session "C"',
      "output partial = do partial()",
      "output attempt = attempt",
      "output rounds = rounds",
    );
    expect(await outputsOf(program, { c: true, d: false })).toEqual({
      partial: "R(A)",
      attempt: null,
      rounds: "R(A 0)",
    });
    await server?.close();
    expect(await outputsOf(program, { c: true, d: true })).toEqual({
      partial: "R(C)",
      attempt: "R(C2)",
      rounds: "R(C)",
    });
  });

  it("ends a loop with the value given before a `break` that stands before the body's last statement; a body that continues gives none", async () => {
    const outputs = await outputsOf(
      lines(
        "let drafted = loop (max: 3) as round:",
        '  let draft = session "Draft {round}"',
        "  if **good {round}**:",
        "    break",
        '  session "Revise {round}"',
        "let finals = repeat 2 as i:",
        "  if **final {i}**:",
        '    let v = session "Final {i}"',
        "    break",
        '  session "Next {i}"',
        'let scans = for x in ["a", "b", "c"]:',
        '  session "Scan {x}"',
        '  if x == "b":',
        "    break",
        '  session "Deep {x}"',
        'let picked = for x in ["a", "b"]:',
        '  if x == "a":',
        '    let skipped = session "Skip {x}"',
        "    continue",
        "  else:",
        '    let kept = session "Keep {x}"',
        'let skips = for x in ["a", "b"]:',
        '  session "Scan {x}"',
        "  if **skip {x}**:",
        '    let v = session "Skip {x}"',
        "    continue",
        "block raises():",
        '  session "A"',
        "  if **raise**:",
        '    let d = session "D"',
        '    throw "x"',
        'let quiet = for x in ["a", "b"]:',
        '  if x == "b":',
        "    break",
        '  session "Only {x}"',
        "output drafted = drafted",
        "output finals = finals",
        "output scans = scans",
        "output quiet = quiet",
        "output picked = picked",
        "output skips = skips",
        "output raised = do raises()",
      ),
      { "good 1": true, "final 1": true, "skip b": true },
    );
    expect(outputs).toEqual({
      drafted: "R(Draft 1)",
      finals: "R(Final 1)",
      scans: ["R(Deep a)", "R(Scan b)"],
      quiet: ["R(Only a)"],
      picked: [null, "R(Keep b)"],
      skips: ["R(Scan a)", null],
      raised: "R(A)",
    });
  });

  it("is a loop iteration's value when a `try:` or an `if` stands before the last `if`, and a `break` carries it", async () => {
    const outputs = await outputsOf(
      lines(
        "let settled = repeat 1 as i:",
        "  try:",
        '    let fetched = session "Fetch"',
        "  catch:",
        '    session "Never"',
        "  if **stop**:",
        "    break",
        "  else:",
        '    let draft = session "Draft {i}"',
        "let recovered = repeat 1 as i:",
        "  try:",
        '    session "Partial"',
        '    throw "down"',
        "  catch:",
        "    if **never**:",
        '      session "Never"',
        "  if **halt**:",
        '    session "Never"',
        "  else:",
        '    let draft = session "Redraft {i}"',
        "let stopped = repeat 2 as i:",
        "  try:",
        '    session "Try {i}"',
        "  catch:",
        '    session "Never"',
        "  if **stop**:",
        "    break",
        "let finals = repeat 3 as i:",
        "  if **done {i}**:",
        '    session "Final {i}"',
        "    break",
        'let scans = for x in ["a", "b"]:',
        '  session "Scan {x}"',
        '  if x == "a":',
        '    session "Last {x}"',
        "    break",
        "block pair():",
        "  if **first**:",
        '    session "First"',
        "  if **second**:",
        '    session "Second"',
        "output settled = settled",
        "output recovered = recovered",
        "output stopped = stopped",
        "output finals = finals",
        "output scans = scans",
        "output pair = do pair()",
      ),
      { stop: true, "done 0": true, first: true },
    );
    expect(outputs).toEqual({
      settled: "R(Fetch)",
      recovered: "R(Redraft 0)",
      stopped: "R(Try 0)",
      finals: "R(Final 0)",
      scans: ["R(Last a)"],
      pair: "R(First)",
    });
  });
});
