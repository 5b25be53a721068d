import { describe, expect, it } from "vitest";
import { checkSource } from "../../src/pipeline.js";
import type { ImportedProgram } from "../../src/phases/2-analyze/index.js";

/** A program that triggers `code`, and a near miss that must not trigger it. */
interface Case {
  readonly code: string;
  readonly triggers: string;
  readonly nearMiss: string;
  readonly message?: RegExp;
}

const agent = "agent writer:\n  model: sonnet\n";
const persistent = "agent captain:\n  model: opus\n  persist: true\n";

const cases: Case[] = [
  { code: "E003", triggers: "session\n  model: opus\n", nearMiss: 'session\n  prompt: "Do it"\n' },
  {
    code: "E006",
    triggers: `${agent}agent writer:\n  model: opus\n`,
    nearMiss: `${agent}agent editor:\n  model: opus\n`,
  },
  {
    code: "E007",

    triggers: `${agent}session: writr\n`,
    nearMiss: `${agent}session: writer\n`,
    message: /agent `writr` is not defined \(did you mean `writer`\?\)/,
  },
  {
    code: "E008",
    triggers: "agent a:\n  model: sonet\n",
    nearMiss: 'agent a:\n  model: "claude-sonnet-4-5"\n',
    message: /did you mean `sonnet`/,
  },
  {
    code: "E009",
    triggers: "agent a:\n  model: opus\n  model: haiku\n",
    nearMiss: 'agent a:\n  model: opus\n  prompt: "x"\n',
  },
  {
    code: "E010",
    triggers: 'use "./a.prose" as a\nuse "./a.prose" as b\n',
    nearMiss: 'use "./a.prose" as a\nuse "./b.prose" as b\n',
  },
  { code: "E011", triggers: 'use ""\n', nearMiss: 'use "./x.prose"\n' },
  { code: "E012", triggers: 'use "not a path"\n', nearMiss: 'use "./not-a-path.prose"\n' },
  {
    code: "E013",
    triggers: 'agent a:\n  skills: "web"\n',
    nearMiss: 'import "web" from "x"\nagent a:\n  skills: ["web"]\n',
  },
  {
    code: "E014",
    triggers: "agent a:\n  skills: [web]\n",
    nearMiss: 'import "web" from "x"\nagent a:\n  skills: ["web"]\n',
  },
  {
    code: "E015",
    triggers: 'agent a:\n  permissions: "all"\n',
    nearMiss: "agent a:\n  permissions:\n    bash: deny\n",
  },
  {
    code: "E016",
    triggers: "agent a:\n  permissions:\n    read: [42]\n",
    nearMiss: 'agent a:\n  permissions:\n    read: ["src/**"]\n',
  },
  {
    code: "E017",

    triggers: `${agent}resume: writer\n`,
    nearMiss: `${persistent}resume: captain\n`,
    message: /add `persist: true` to agent `writer`|needs a persistent agent/,
  },
  { code: "E019", triggers: 'let a = "x"\nlet a = "y"\n', nearMiss: 'let a = "x"\na = "y"\n' },
  { code: "E021", triggers: 'input a: "x"\ninput a: "y"\n', nearMiss: 'input a: "x"\ninput b: "y"\n' },
  {
    code: "E024",
    triggers: 'output r = "a"\noutput r = "b"\n',
    nearMiss: 'if **x**:\n  output r = "a"\nelse:\n  output r = "b"\n',
  },
  {
    code: "E025",
    triggers: 'let r = research(topic: "x")\n',
    nearMiss: 'use "./research.prose"\nlet r = research(topic: "x")\n',
  },
  {
    code: "E026",
    triggers: 'use "./research.prose"\nlet r = research()\n',
    nearMiss: 'use "./research.prose"\nlet r = research(topic: "x")\n',
  },
  {
    code: "E027",

    triggers: 'use "./research.prose"\nlet r = research(topic: "x", topik: "y")\n',
    nearMiss: 'use "./research.prose"\nlet r = research(topic: "x")\n',
  },
  {
    code: "E028",

    triggers: 'use "./research.prose"\nlet r = research(topic: "x")\nlet s = r.summry\n',
    nearMiss: 'use "./research.prose"\nlet r = research(topic: "x")\nlet s = r.summary\n',
  },
  { code: "W001", triggers: 'session ""\n', nearMiss: 'session "x"\n' },
  { code: "W002", triggers: 'session "   "\n', nearMiss: 'session " x "\n' },
  { code: "W003", triggers: `session "${"x".repeat(10_001)}"\n`, nearMiss: `session "${"x".repeat(10_000)}"\n` },
  { code: "W004", triggers: 'session "L"\n  prompt: ""\n', nearMiss: 'session "L"\n  prompt: "p"\n' },
  {
    code: "W005",
    triggers: 'agent a:\n  notes: "be brief"\n',
    nearMiss: "agent a:\n  model: opus\n",
    message: /unknown property `notes`/,
  },
  {
    code: "P035",
    triggers: "agent a:\n  permisions:\n    bash: deny\n",
    nearMiss: "agent a:\n  permissions:\n    bash: deny\n",
    message: /unknown property `permisions`: did you mean `permissions`\?/,
  },
  { code: "W006", triggers: 'import "web" from "github:x/web"\n', nearMiss: 'use "./web.prose"\n' },
  {
    code: "W007",
    triggers: 'agent a:\n  skills: ["web"]\n',
    nearMiss: 'use "./web.prose"\nagent a:\n  skills: ["web"]\n',
  },
  {
    code: "W008",
    triggers: "agent a:\n  permissions:\n    raed: []\n",
    nearMiss: "agent a:\n  permissions:\n    read: []\n",
  },
  {
    code: "W009",
    triggers: "agent a:\n  permissions:\n    bash: maybe\n",
    nearMiss: "agent a:\n  permissions:\n    bash: prompt\n",
  },
  { code: "W010", triggers: "agent a:\n  skills: []\n", nearMiss: 'import "s" from "x"\nagent a:\n  skills: ["s"]\n' },
  {
    code: "P001",
    triggers: 'let draft = "x"\nsession "a"\n  context: draf\n',
    nearMiss: 'let draft = "x"\nsession "a"\n  context: draft\n',
    message: /`draf` is not defined \(did you mean `draft`\?\)/,
  },
  { code: "P002", triggers: 'session "Hi {name}"\n', nearMiss: 'let name = "x"\nsession "Hi {name}"\n' },
  {
    code: "P003",
    triggers: 'session "a"\n  backoff: quadratic\n',
    nearMiss: 'session "a"\n  backoff: "exponential"\n',
  },
  {
    code: "P004",
    triggers: 'loop until **done**:\n  session "a"\n',
    nearMiss: 'loop until **done** (max: 3):\n  session "a"\n',
  },
  {
    code: "P005",
    triggers: 'parallel (count: 1):\n  session "a"\n  session "b"\n',
    nearMiss: 'parallel ("any", count: 1):\n  session "a"\n  session "b"\n',
  },
  {
    code: "P006",
    triggers: 'block b(x):\n  session "{x}"\ndo b()\n',
    nearMiss: 'block b(x):\n  session "{x}"\ndo b("y")\n',
  },
  {
    code: "P007",
    triggers: 'let a = "x"\nfor i in [1]:\n  let a = "y"\n',
    nearMiss: 'let a = "x"\nfor i in [1]:\n  a = "y"\n',
  },
  {
    code: "P009",
    triggers: 'block review:\n  session "a"\ndo reveiw\n',
    nearMiss: 'block review:\n  session "a"\ndo review\n',
    message: /did you mean `review`/,
  },
  { code: "P010", triggers: 'const a = "x"\na = "y"\n', nearMiss: 'let a = "x"\na = "y"\n' },
  { code: "P011", triggers: 'repeat 0:\n  session "a"\n', nearMiss: 'repeat 1:\n  session "a"\n' },
  { code: "P012", triggers: `${agent}let writer = "x"\n`, nearMiss: `${agent}let author = "x"\n` },
  { code: "P013", triggers: 'try:\n  session "a"\n', nearMiss: 'try:\n  session "a"\ncatch:\n  session "b"\n' },
  { code: "P014", triggers: 'if ** **:\n  session "a"\n', nearMiss: 'if **ok**:\n  session "a"\n' },
  {
    code: "P015",
    triggers: 'block a:\n  session "x"\nblock a:\n  session "y"\n',
    nearMiss: 'block a:\n  session "x"\nblock b:\n  session "y"\n',
  },
  {
    code: "P016",

    triggers: 'choice **pick**:\n  option "A":\n    session "a"\n  option "A":\n    session "b"\n',
    nearMiss: 'choice **pick**:\n  option "A":\n    session "a"\n  option "B":\n    session "b"\n',
  },
  { code: "P017", triggers: 'loop (maximum: 3):\n  session "a"\n', nearMiss: 'loop (max: 3):\n  session "a"\n' },
  {
    code: "P018",
    triggers: 'parallel ("any", count: 3):\n  session "a"\n  session "b"\n',
    nearMiss: 'parallel ("any", count: 2):\n  session "a"\n  session "b"\n',
  },
  {
    code: "P019",

    triggers: 'block fetch:\n  let found = session "a"\ndo fetch\nsession "b"\n  context: found\n',
    nearMiss:
      'block fetch:\n  let found = session "a"\n  output found\nlet found = do fetch\nsession "b"\n  context: found\n',
  },
  {
    code: "P040",
    triggers: 'session "a"\nthrow "stop"\nsession "never"\n',
    nearMiss: 'session "a"\nif **done**:\n  throw "stop"\nsession "sometimes"\n',
    message: /this code never runs: the `throw` on line 2 always leaves before it/,
  },
  {
    code: "P041",
    triggers: 'for item in ["a", "b"]:\n  item = session "Expand {item}"\n',
    nearMiss: 'for item in ["a", "b"]:\n  let expanded = session "Expand {item}"\n',
    message: /`item` is a loop variable \(line 1\): the new value holds only until the next iteration/,
  },
  {
    code: "P041",
    triggers: 'block polish(draft):\n  draft = session "Polish {draft}"\n  output draft\n',
    nearMiss: 'block polish(draft):\n  let polished = session "Polish {draft}"\n  output polished\n',
    message: /`draft` is a block parameter \(line 1\): the new value holds only until the next call/,
  },
];

const research: ImportedProgram = { inputs: ["topic"], outputs: ["summary"] };
const options = { resolveImport: (path: string) => (path === "./research.prose" ? research : undefined) };

function codesOf(source: string): { code: string; at: string; message: string }[] {
  return checkSource(source, options).diagnostics.map((d) => ({
    code: d.code,
    at: `${d.range.start.line}:${d.range.start.column}`,
    message: d.message,
  }));
}

describe("a used program's outputs (E028)", () => {
  const withPlain = {
    resolveImport: (path: string): ImportedProgram | undefined =>
      path === "./research.prose" ? research : path === "./plain.prose" ? { inputs: [], outputs: [] } : undefined,
  };
  const codes = (source: string) =>
    checkSource(source, withPlain).diagnostics.map((d) => `${d.code} ${d.range.start.line}:${d.range.start.column}`);

  it("destructuring names only outputs the program declares", () => {
    expect(codes('use "./research.prose"\nlet { summary } = research(topic: "x")\n')).toEqual([]);
    expect(codes('use "./research.prose"\nlet { summary, sources } = research(topic: "x")\n')).toEqual(["E028 2:16"]);
  });

  it("a program without outputs returns its final result: any field may be read", () => {
    expect(codes('use "./plain.prose"\nlet r = plain()\nlet s = r.anything\nlet { a, b } = plain()\n')).toEqual([]);
  });

  it("destructured names are declared: twice in one scope is E019, a const one is not rebound (P010)", () => {
    expect(codes("let { a, a } = { a: 1 }\n")).toEqual(["E019 1:10"]);
    expect(codes("const { a } = { a: 1 }\na = 2\n")).toEqual(["P010 2:1"]);
  });
});

describe("every validation code", () => {
  it.each(cases.map((c) => [c.code, c] as const))("%s: triggers where expected, and not on a near miss", (_code, c) => {
    const found = codesOf(c.triggers).filter((d) => d.code === c.code);
    expect(found.length, JSON.stringify(codesOf(c.triggers))).toBeGreaterThan(0);
    if (c.message) expect(found[0]!.message).toMatch(c.message);
    expect(codesOf(c.nearMiss).map((d) => d.code)).not.toContain(c.code);
  });

  it("reports each code at the line and column of the offending thing", () => {
    const located: Record<string, string> = {
      E006: "3:7",
      E007: "3:10",
      E008: "2:10",
      E009: "3:3",
      E010: "2:1",
      E011: "1:5",
      E012: "1:5",
      E013: "2:11",
      E014: "2:12",
      E015: "2:16",
      E016: "3:12",
      E017: "3:9",
      E019: "2:5",
      E021: "2:7",
      E024: "2:8",
      E025: "1:9",
      E027: "2:30",
      E028: "3:11",
      P001: "3:12",
      P019: "5:12",
      W001: "1:9",
      W002: "1:9",
      W005: "2:3",
      W007: "2:12",
      W008: "3:5",
      W009: "3:11",
      W010: "2:11",
      P002: "1:13",
      P003: "2:12",
      P005: "1:11",
      P007: "3:7",
      P009: "3:4",
      P010: "2:1",
      P011: "1:8",
      P012: "3:5",
      P015: "3:7",
      P016: "4:10",
      P017: "1:7",
      P035: "2:3",
      P040: "3:1",
      P041: "2:3",
    };
    const wrong: string[] = [];
    for (const c of cases) {
      const expected = located[c.code];
      if (!expected) continue;
      const found = codesOf(c.triggers).find((d) => d.code === c.code);
      if (found?.at !== expected) wrong.push(`${c.code}: expected ${expected}, got ${found?.at}`);
    }
    expect(wrong).toEqual([]);
  });

  it("points at the first definition (or the outer or `const` declaration) as related data", () => {
    const related: Record<string, string> = {
      E006: "1:7 first defined here",
      E009: "2:3 first set here",
      E010: "1:1 first imported here",
      E019: "1:5 first declared here",
      E021: "1:7 first declared here",
      E024: "1:8 first declared here",
      P007: "1:5 the outer declaration",
      P010: "1:7 declared `const` here",
      P015: "1:7 first defined here",
      // The last case of the code counts: the block parameter's.
      P041: "1:14 the block parameter",
    };
    const found = Object.fromEntries(
      cases.flatMap((c) => {
        const diagnostic = checkSource(c.triggers, options).diagnostics.find((d) => d.code === c.code && d.related);
        return diagnostic
          ? [
              [
                c.code,
                diagnostic.related!.map((r) => `${r.range.start.line}:${r.range.start.column} ${r.message}`).join("; "),
              ],
            ]
          : [];
      }),
    );
    expect(found).toEqual(related);
  });

  it("P002: a placeholder two edits from a bound name suggests it, in the message and the hint", () => {
    const [near] = checkSource('let description = "x"\nsession "On {desciptoin}"\n', options).diagnostics;
    expect(near?.message).toBe(
      "`{desciptoin}` names no binding, so it stays literal text (did you mean `description`?)",
    );
    expect(near?.hint).toBe(
      "write `{description}` to interpolate `description`, or write \\{ to mark the brace as text",
    );
    const [far] = checkSource('let topic = "x"\nsession "On {weather}"\n', options).diagnostics;
    expect(far?.message).toBe("`{weather}` names no binding, so it stays literal text");
    expect(far?.hint).toBe("bind `weather` before this line to interpolate it, or write \\{ to mark the brace as text");
  });

  it("P039: a placeholder of 3 or more characters one edit from a binding in scope is a typo, an error", () => {
    const typos = (placeholder: string) =>
      checkSource(`let report = "x"\nlet timeframe = "y"\nsession "On ${placeholder}"\n`, options).diagnostics.map(
        (diagnostic) => `${diagnostic.code} ${diagnostic.severity}`,
      );
    // A transposition, a deletion, an insertion, a substitution: one edit each.
    for (const typo of ["{reprot}", "{repot}", "{repoort}", "{repart}", "{reprot.summary}"])
      expect(typos(typo)).toEqual(["P039 error"]);
    // Two edits away, or too short to tell from a template slot: a warning, the text stays literal.
    expect(typos("{timestamp}")).toEqual(["P002 warning"]);
    expect(typos("{rpeort_}")).toEqual(["P002 warning"]);
    const [typo] = checkSource('let report = "x"\nsession "See {reprot.summary}"\n', options).diagnostics;
    expect(typo).toMatchObject({
      message:
        "`{reprot.summary}`: `reprot` is one edit from `report`, so this looks like a typo, not text for the model",
      hint: "write `{report.summary}` to interpolate `report`, or \\{reprot.summary} to keep the braces as text",
      range: { start: { line: 2, column: 14 } },
    });
    const short = checkSource('let ab = "x"\nsession "On {ac}"\n', options).diagnostics;
    expect(short.map((diagnostic) => diagnostic.code)).toEqual(["P002"]);
  });
});

describe("input modifiers", () => {
  it("takes (timeout: N) with N a whole number of seconds, and no other modifier", () => {
    expect(codesOf('session "a"\ninput ok: "Approve?" (timeout: 3600)\n')).toEqual([]);
    expect(codesOf('session "a"\ninput late: "Approve?" (timeout: 0)\n').map((d) => `${d.code} ${d.at}`)).toEqual([
      "P011 2:34",
    ]);
    expect(codesOf('session "a"\ninput odd: "Approve?" (max: 3)\n')).toMatchObject([
      { code: "P017", at: "2:24", message: "`max` is not a modifier here" },
    ]);
  });
});
