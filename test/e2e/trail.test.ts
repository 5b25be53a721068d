/**
 * The trail (DIALECT.md, "Context: what a model sees"): what each session and judgment received,
 * exactly, for sequences, transparent `if` bodies, loop iterations, parallel branches and block calls.
 * Programs run with `concurrency: 1` against the fake Messages API; every session replies `R(<task>)`.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../runtime/index.js";
import { trailSections } from "../../runtime/values/trail.js";
import {
  lastUserText,
  reply,
  startFakeAnthropic,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import {
  callKind,
  firstUserText,
  judgmentCondition,
  loadProgram,
  TEST_API_KEY,
  temporaryFolder,
  trailText,
} from "./harness.js";
import { lines } from "../support/lines.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let programs = 0;

/** Runs `source`; judgments answer from `answers` by condition, in order. Returns each request's kind, task or condition and trail. */
async function run(
  source: string,
  answers: Record<string, boolean[]> = {},
  trailTokens?: number,
): Promise<{ asked: string[]; requests: readonly FakeRequest[]; events: RunEvent[] }> {
  const respond = (request: FakeRequest) => {
    if (callKind(request) === "session") return reply.text(`R(${taskLine(request)})`);
    return reply.toolUse([
      { name: "answer", input: { answer: answers[judgmentCondition(request)]?.shift() ?? false, reason: "scripted" } },
    ]);
  };
  server = await startFakeAnthropic({ respond });
  const program = await loadProgram(source, `trail-${++programs}.prose`);
  const events: RunEvent[] = [];
  await program.run(
    {},
    {
      apiKey: TEST_API_KEY,
      baseURL: server.url,
      cwd: temporaryFolder("prosec-e2e-trail-"),
      concurrency: 1,
      maxRetries: 0,
      onEvent: (event: RunEvent) => events.push(event),
      ...(trailTokens === undefined ? {} : { trailTokens }),
    },
  );
  const asked = server.requests.map((request) => {
    const what =
      callKind(request) === "session" ? `session ${taskLine(request)}` : `judge ${judgmentCondition(request)}`;
    const trail = trailText(request);
    return trail === ""
      ? what
      : `${what} | ${trail
          .split("\n")
          .filter((line) => line.startsWith("### ") || line.startsWith("["))
          .join(" ")}`;
  });
  return { asked, requests: server.requests, events };
}

/** A session's task line (after a block call's execution scope, when there is one). */
function taskLine(request: FakeRequest): string {
  const parts = firstUserText(request).split("\n\n");
  return (parts.find((part) => !part.startsWith("Execution scope:")) ?? "").split("\n")[0]!;
}

describe("the trail", () => {
  it("a sequence: unbound results join it, bound ones and context: [] sessions' inputs do not, if bodies are transparent", async () => {
    const { asked, requests, events } = await run(
      lines(
        'session "Check health"',
        'let named = session "Named step"',
        "if **the system is unhealthy**:",
        '  session "Repair"',
        'session "Isolated"',
        "  context: []",
        'session "Last"',
      ),
      { "the system is unhealthy": [true] },
    );
    expect(asked).toEqual([
      "session Check health",
      "session Named step | ### Check health",
      "judge the system is unhealthy | ### Check health",
      "session Repair | ### Check health",
      "session Isolated",
      "session Last | ### Check health ### Repair ### Isolated",
    ]);
    // The judge's whole question: the trail first, then the named values, then the condition and its construct.
    expect(lastUserText(requests[2]!)).toBe(
      "## Earlier results (oldest first)\n\n### Check health\n\nR(Check health)\n\n## Context\n\n### named\n\nR(Named step)\n\nCondition: the system is unhealthy\n\nAn `if` asks: when the condition is true, the program runs the branch under it.\n\nIs the condition true?",
    );
    // A session's whole task message: the trail, then its task.
    expect(firstUserText(requests[1]!)).toBe("Named step");
    expect(lastUserText(requests[1]!)).toBe(
      "## Earlier results (oldest first)\n\n### Check health\n\nR(Check health)\n\n## Your task\n\nNamed step",
    );
    // The trace says what each request held.
    expect(events).toContainEqual(expect.objectContaining({ type: "judgment", asks: "if", trail: ["Check health"] }));
    expect(events).toContainEqual(
      expect.objectContaining({ type: "session-start", label: "Last", trail: ["Check health", "Repair", "Isolated"] }),
    );
  });

  it("a loop: each iteration sees the enclosing trail and the previous iteration's results, and so does the until judgment", async () => {
    const { asked } = await run(
      lines(
        'session "Brief"',
        "loop until **design is finalized** (max: 3) as round:",
        '  session "Design round {round}"',
        '  session "Review round {round}"',
        'session "After"',
      ),
      {
        "design is finalized": [false, false, true],
      },
    );
    expect(asked).toEqual([
      "session Brief",
      "judge design is finalized | ### Brief",
      "session Design round 0 | ### Brief",
      "session Review round 0 | ### Brief ### Design round 0",
      "judge design is finalized | ### Brief ### Design round 0 ### Review round 0",
      "session Design round 1 | ### Brief ### Design round 0 ### Review round 0",
      "session Review round 1 | ### Brief ### Design round 0 ### Review round 0 ### Design round 1",
      // Only the previous iteration, not every earlier one.
      "judge design is finalized | ### Brief ### Design round 1 ### Review round 1",
      // After the loop, the enclosing sequence again.
      "session After | ### Brief",
    ]);
  });

  it("parallel calls of a block: every call has its own frame, branches see where the parallel began, results join in branch order", async () => {
    const { asked, requests } = await run(
      lines(
        'session "Plan"',
        "block sweep(t):",
        '  let docs = session "Docs for {t}"',
        '  session "Summarize docs of {t}"',
        "    context: docs",
        "parallel:",
        '  do sweep("A")',
        '  do sweep("B")',
        'session "Merge"',
        'session "Read docs"',
        "  context: docs",
      ),
    );
    const sorted = asked.slice(1, -2).sort();
    // A block body starts empty: its sessions see no trail of the caller's.
    expect(sorted).toEqual([
      "session Docs for A",
      "session Docs for B",
      "session Summarize docs of A",
      "session Summarize docs of B",
    ]);
    for (const t of ["A", "B"]) {
      const summary = requests.find((request) => taskLine(request) === `Summarize docs of ${t}`)!;
      expect(lastUserText(summary)).toMatch(
        new RegExp(
          `^## Context\n\n### docs\n\nR\\(Docs for ${t}\\)\n\nExecution scope:\n[^#]*\n\nSummarize docs of ${t}$`,
        ),
      );
    }
    expect(asked.at(-2)).toBe("session Merge | ### Plan ### parallel branch 1 ### parallel branch 2");
    // Read outside the block (P019): the value of the call that finished last.
    expect([
      "## Context\n\n### docs\n\nR(Docs for A)\n\nRead docs",
      "## Context\n\n### docs\n\nR(Docs for B)\n\nRead docs",
    ]).toContain(lastUserText(requests.at(-1)!));
    expect(lastUserText(requests.at(-2)!)).toContain(
      "### parallel branch 1\n\nR(Summarize docs of A)\n\n### parallel branch 2\n\nR(Summarize docs of B)",
    );
  });

  it("a parallel branch sees the trail where the parallel began", async () => {
    const { asked } = await run(
      lines(
        'session "Plan"',
        "parallel:",
        '  session "Left"',
        '  x = session "Right"',
        '  let { a } = { a: "from a record" }',
        'session "Merge"',
      ),
    );
    // Named branches, a destructuring one too, are bound: only the unnamed one joins the trail.
    expect(asked).toEqual([
      "session Plan",
      "session Left | ### Plan",
      "session Right | ### Plan",
      "session Merge | ### Plan ### parallel branch 1",
    ]);
  });

  it("keeps the newest entries within the budget, cuts an oversized one head and tail, and says how many were left out", async () => {
    const { requests } = await run(lines('session "One"', 'session "Two"', 'session "Three"', 'session "Four"'), {}, 5);
    // 20 characters: only the newest entry fits, the two before it are counted.
    expect(lastUserText(requests[3]!)).toBe(
      "## Earlier results (oldest first)\n\n[2 earlier results left out]\n\n### Three\n\nR(Three)\n\n## Your task\n\nFour",
    );
    const cut = trailSections(
      [
        { source: "Old", value: "o" },
        { source: "Big", value: `HEAD${"x".repeat(400)}TAIL` },
      ],
      100,
    ).join("\n\n");
    expect(cut).toBe(
      `## Earlier results (oldest first)\n\n### Old\n\no\n\n### Big\n\nHEAD${"x".repeat(6)}\n\n[... 388 characters omitted ...]\n\n${"x".repeat(6)}TAIL`,
    );
  });
});

describe("block calls", () => {
  it("a block called above a top-level let that precedes its definition sees that binding as null (shown empty), and a missing argument is null", async () => {
    const { requests } = await run(
      lines(
        'do check("apple")',
        "do check()",
        'let early = session "declared before the block, after the call"',
        "block check(thing):",
        "  if **the thing is good**:",
        '    session "good"',
      ),
    );
    expect(requests.map((request) => lastUserText(request))).toEqual([
      "## Context\n\n### early\n\n\n\n### thing\n\napple\n\nCondition: the thing is good\n\nAn `if` asks: when the condition is true, the program runs the branch under it.\n\nIs the condition true?",
      "## Context\n\n### early\n\n\n\n### thing\n\n\n\nCondition: the thing is good\n\nAn `if` asks: when the condition is true, the program runs the branch under it.\n\nIs the condition true?",
      // A block without output gives nothing to the trail.
      "declared before the block, after the call",
    ]);
  });

  it("recursion: each call has its own frame, and the outside reads what the last finished call bound", async () => {
    const { requests } = await run(
      lines(
        "block walk(depth):",
        '  let parts = session "Parts at {depth}"',
        "  if depth > 0:",
        "    do walk(depth - 1)",
        '  session "Combine at {depth}"',
        "    context: parts",
        "do walk(1)",
        'session "Report"',
        "  context: parts",
      ),
    );
    const combined = (depth: number) =>
      lastUserText(requests.find((request) => taskLine(request) === `Combine at ${depth}`)!);
    // Stable first: the context, then the execution scope and the task.
    expect(combined(0)).toMatch(
      /^## Context\n\n### parts\n\nR\(Parts at 0\)\n\nExecution scope:[^#]*\n\nCombine at 0$/,
    );
    expect(combined(1)).toMatch(
      /^## Context\n\n### parts\n\nR\(Parts at 1\)\n\nExecution scope:[^#]*\n\nCombine at 1$/,
    );
    expect(lastUserText(requests.at(-1)!)).toBe("## Context\n\n### parts\n\nR(Parts at 1)\n\nReport");
  });
});

describe("pipeline items are sequences", () => {
  const plan = "## Earlier results (oldest first)\n\n### Plan\n\nR(Plan)\n\n## Your task\n\n";

  it("a `map` item sees where the stage began and its own results, never another item's; the bound result is no trail entry", async () => {
    const { asked, requests } = await run(
      lines(
        'session "Plan"',
        'let shouted = ["alpha", "beta"] | map:',
        '  session "Draft {item}"',
        '  session "Shout {item}"',
        'session "After"',
      ),
    );
    expect(asked).toEqual([
      "session Plan",
      "session Draft alpha | ### Plan",
      "session Shout alpha | ### Plan ### Draft alpha",
      "session Draft beta | ### Plan",
      "session Shout beta | ### Plan ### Draft beta",
      "session After | ### Plan",
    ]);
    expect(lastUserText(requests[3]!)).toBe(`${plan}Draft beta`);
    expect(lastUserText(requests[4]!)).toBe(
      "## Earlier results (oldest first)\n\n### Plan\n\nR(Plan)\n\n### Draft beta\n\nR(Draft beta)\n\n## Your task\n\nShout beta",
    );
    expect(lastUserText(requests[5]!)).toBe(`${plan}After`);
  });

  it("a `filter` item's verdict session sees where the stage began, not the earlier items' verdicts", async () => {
    const { asked, requests } = await run(
      lines(
        'session "Plan"',
        'let kept = ["alpha", "beta", "gamma"] | filter:',
        '  session "Keep {item}?"',
        'session "After"',
        "  context: kept",
      ),
    );
    // The replies are no yes or no: each is read by a judgment of its own, which sees no trail.
    const verdict = "judge Does this text answer yes (keep, true, positive) or no?";
    expect(asked).toEqual([
      "session Plan",
      "session Keep alpha? | ### Plan",
      verdict,
      "session Keep beta? | ### Plan",
      verdict,
      "session Keep gamma? | ### Plan",
      verdict,
      "session After",
    ]);
    expect(lastUserText(requests[5]!)).toBe(`${plan}Keep gamma?`);
  });

  it("a `reduce` step sees where the stage began; the accumulator is passed by name, earlier steps are no trail entries", async () => {
    const { asked, requests } = await run(
      lines(
        'session "Plan"',
        'let merged = ["a", "b", "c"] | reduce(acc, x):',
        '  session "Merge {acc} with {x}"',
        'session "After"',
      ),
    );
    expect(asked).toEqual([
      "session Plan",
      "session Merge a with b | ### Plan",
      "session Merge R(Merge a with b) with c | ### Plan",
      "session After | ### Plan",
    ]);
    expect(lastUserText(requests[2]!)).toBe(`${plan}Merge R(Merge a with b) with c`);
    expect(lastUserText(requests[3]!)).toBe(`${plan}After`);
  });

  it("an unbound pipeline's items leave nothing on the trail either", async () => {
    const { asked } = await run(
      lines('session "Plan"', '["x", "y"] | map:', '  session "Shout {item}"', 'session "After"'),
    );
    expect(asked).toEqual([
      "session Plan",
      "session Shout x | ### Plan",
      "session Shout y | ### Plan",
      "session After | ### Plan",
    ]);
  });
});
