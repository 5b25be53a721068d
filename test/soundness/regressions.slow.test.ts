/**
 * Issue 14's classes of programs that checked clean but did not build, type-check or run: each one
 * goes through the whole soundness property (check → compile → strict type-check → run).
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSource } from "../../src/pipeline.js";
import { checkSoundness, type CaseResult, type SoundnessCase } from "../support/soundness.js";
import { nested, nestingKinds } from "./nesting.js";
import { temporaryFolder } from "../support/temp.js";

const cases: SoundnessCase[] = [
  {
    name: "for-variable-assigned-in-nested-loop",
    files: {
      "main.prose":
        'let xs = ["a", "b"]\nlet seen = []\nfor x in xs:\n  loop while **more** (max: 1):\n    x = "t"\n  seen = seen + [x]\noutput o = seen\n',
    },
  },
  {
    name: "loop-variables-reassigned",
    files: {
      "main.prose": [
        "let runs = 0",
        "repeat 3 as i:",
        '  i = "text"',
        "  runs = runs + 1",
        "loop (max: 2) as k:",
        "  k = k + 10",
        "  runs = runs + 1",
        'for n, x in ["a", "b"]:',
        '  n = "first"',
        "  x = n + x",
        'let ys = ["p", "q"] | map:',
        '  item = item + "!"',
        "  item",
        'parallel for y, j in ["u", "v"]:',
        '  j = "index"',
        '  session "{y} {j}"',
        "try:",
        '  throw "boom"',
        "catch as err:",
        '  err = "replaced"',
        "output count = runs",
        "output mapped = ys",
        "output caught = err",
      ].join("\n"),
    },
  },
  {
    // Issue 40, item 6: every option of a `choice` raises (one in a `do:`, then code that never runs);
    // TypeScript narrowed every value after the exhaustive `switch` to `never`.
    name: "choice-whose-options-all-raise-then-a-loop",
    files: {
      "main.prose": [
        "let xs = []",
        "choice **pick**:",
        '  option "A":',
        "    do:",
        '      session "a"',
        '      throw "a"',
        '      for y in ["z"]:',
        '        session "never {y}"',
        '  option "B":',
        '    throw "b"',
        'for x in ["a"]:',
        '  xs = xs + [session "x {x}"]',
        "repeat 2:",
        "  try:",
        '    throw "c"',
        '    session "never"',
        "  finally:",
        "    loop (max: 2):",
        '      session "l"',
        "output o = xs",
      ].join("\n"),
    },
  },
  {
    name: "throw-then-try-catch-as",
    files: {
      "main.prose":
        'throw "stop"\nlet k = 1\nlet xs = ["a"]\nlet x = xs[k]\ntry:\n  session "a"\ncatch as err:\n  session "b {err}"\n',
    },
  },
  {
    // Generated seed 3168: `00` reached the module as written, a legacy octal literal strict mode rejects.
    name: "numbers-with-leading-zeros",
    files: {
      "main.prose": [
        'let xs = ["a", "b"]',
        "let first = xs[00]",
        "repeat 002:",
        '  session "{first}"',
        "output o = first",
        "",
      ].join("\n"),
    },
  },
  {
    name: "try-without-catch-or-finally",
    files: { "main.prose": 'let r = try:\n  session "a"\noutput o = r\ntry:\n  session "b"\n' },
  },
  {
    name: "parallel-binding-one-name-twice-as-block-value",
    files: {
      "main.prose":
        'block b():\n  parallel:\n    a = session "x"\n    a = session "y"\n\nlet r = do b()\noutput o = r\n',
    },
  },
  {
    name: "block-called-with-fewer-and-more-arguments",
    files: {
      "main.prose":
        'block greet(name, other):\n  session "Hi {name} and {other}"\n\ndo greet("x")\ndo greet("x", "y", "more " + session "extra")\noutput o = do greet()\n',
    },
  },
  // Found by the generator (test/soundness/generated.slow.test.ts):
  {
    name: "input-asked-in-try-and-loop",
    files: {
      "main.prose":
        'try:\n  input x: "?"\ncatch:\n  session "s"\n    context: { x }\nloop while not **done** (max: 2):\n  input z: **q**\n',
    },
  },
  {
    name: "two-reduces-in-one-body",
    files: {
      "main.prose":
        'let a = ["x", "y"] | reduce(acc, each):\n  acc + each\nlet b = ["p", "q"] | reduce(acc, each):\n  acc + each\noutput o = a + b\n',
    },
  },
  {
    // Declared without a value (bound in every option): a judgment in a later option, a loop's
    // condition and a block's judgment never read one unbound; the output is typed without null.
    name: "bound-in-every-option",
    files: {
      "main.prose": [
        "block decide(topic):",
        "  choice **which for {topic}**:",
        '    option "one":',
        '      pick = session "One"',
        '    option "two":',
        '      pick = session "Two"',
        "  output pick",
        "choice **which way**:",
        '  option "words":',
        '    answer = session "Say it"',
        '    other = session "Other"',
        '  option "judged":',
        "    answer = **is it so**",
        "    other = **and this**",
        '  option "leave":',
        '    throw "none fits"',
        "loop until **good enough** (max: 2):",
        "  choice **how**:",
        '    option "a":',
        '      draft = session "A {answer}"',
        '    option "b":',
        '      draft = session "B {other}"',
        '  session "Polish {draft}"',
        'let decided = do decide("x")',
        "output answer = answer",
        "output decided = decided",
        "",
      ].join("\n"),
    },
  },
];

/** The deepest program of each kind that `check` accepts (one level more is P022): it must still build and run. */
function deepestAccepted(kind: (typeof nestingKinds)[number]): SoundnessCase {
  let levels = 1;
  while (!checkSource(nested(kind, levels + 1)).diagnostics.some((diagnostic) => diagnostic.code === "P022")) levels++;
  return { name: `deepest-${kind}-${levels}`, files: { "main.prose": nested(kind, levels) } };
}
const deepest = nestingKinds.map(deepestAccepted);
cases.push(...deepest);

let root: string;
let results: Map<string, CaseResult>;

beforeAll(async () => {
  root = temporaryFolder("prosec-soundness-");
  results = new Map((await checkSoundness(cases, root)).map((result) => [result.name, result]));
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("programs that check clean build, type-check and run (issue 14)", () => {
  it.each(cases.map((entry) => entry.name))("%s", (name) => {
    const result = results.get(name)!;
    expect(result.rejected, JSON.stringify(result.diagnostics)).toBe(false);
    expect(result.violation).toBeUndefined();
    expect(result.outcome).toBeDefined();
  });

  it("a reassigned for variable changes only its own iteration", () => {
    // Whether the judged loop runs its body is up to the scripted model: either way, per item.
    const outputs = (results.get("for-variable-assigned-in-nested-loop")!.outcome as { outputs: { o: string[] } })
      .outputs;
    expect(outputs.o).toHaveLength(2);
    expect(["a", "t"]).toContain(outputs.o[0]);
    expect(["b", "t"]).toContain(outputs.o[1]);
  });

  it("a reassigned loop counter neither stops nor lengthens its loop; item, index and catch variables take any value", () => {
    const outputs = (results.get("loop-variables-reassigned")!.outcome as { outputs: Record<string, unknown> }).outputs;
    expect(outputs).toEqual({ count: 5, mapped: ["p!", "q!"], caught: "replaced" });
  });

  it("a number written with leading zeros is its value: xs[00] reads the first item", () => {
    expect(results.get("numbers-with-leading-zeros")!.outcome).toEqual({ outputs: { o: "a" } });
  });

  it("code after a throw is never reached; the throw's message is what the run raises", () => {
    expect(results.get("throw-then-try-catch-as")!.outcome).toEqual({ raised: expect.stringContaining("stop") });
  });

  it("a parallel block naming one binding twice is worth a record with that name once", () => {
    const result = results.get("parallel-binding-one-name-twice-as-block-value")!;
    const outputs = (result.outcome as { outputs: Record<string, { a: string }> }).outputs;
    expect(Object.keys(outputs["o"]!)).toEqual(["a"]);
    expect(result.prompts).toHaveLength(2);
  });

  it("an input asked inside `try` or a loop body is declared where the catch and the loop's judgment can see it", () => {
    const result = results.get("input-asked-in-try-and-loop")!;
    expect(result.outcome).toEqual({ outputs: {} });
    // The loop's judgment (asked before each iteration) names what the body's input bound.
    expect(result.prompts.some((prompt) => prompt.includes("answer for z"))).toBe(true);
  });

  it("two reduces in one body keep their own accumulators", () => {
    expect(results.get("two-reduces-in-one-body")!.outcome).toEqual({ outputs: { o: "xypq" } });
  });

  it("a missing block argument is null, never `undefined` in a prompt; an extra one still runs", () => {
    const result = results.get("block-called-with-fewer-and-more-arguments")!;
    expect(result.prompts.some((prompt) => prompt.includes("Hi x and "))).toBe(true);
    expect(result.prompts.join("\n")).not.toContain("undefined");
    expect(result.prompts.some((prompt) => prompt.includes("extra"))).toBe(true);
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["P006", "P006", "P006"]);
  });
});

describe("the nesting limit (P022) leaves room for every phase", () => {
  it("the deepest program of each kind that check accepts builds, type-checks and runs", () => {
    for (const entry of deepest) {
      const result = results.get(entry.name)!;
      expect(result.rejected, `${entry.name}: ${JSON.stringify(result.diagnostics)}`).toBe(false);
      expect(result.violation, entry.name).toBeUndefined();
    }
    // The limit is not so low that real nesting is refused: every kind nests dozens of levels.
    expect(deepest.map((entry) => Number(entry.name.split("-").pop()))).toEqual(deepest.map(() => expect.any(Number)));
    for (const entry of deepest) expect(Number(entry.name.split("-").pop()), entry.name).toBeGreaterThanOrEqual(30);
  });
});
