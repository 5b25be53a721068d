/**
 * `prosec cost` and the bound in `prosec build --check`, through the built CLI.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

function folderWith(files: Record<string, string>): string {
  const folder = temporaryFolder("prosec-cost-");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return folder;
}

const review = [
  'input items: "Pull requests to review"',
  "for pr in items:",
  '  session "Review {pr}"',
  "loop until **all reviews are merged**:",
  '  session "Chase reviewers"',
  'output done = session "Report"',
  "",
].join("\n");

describe("prosec cost", () => {
  it("prints calls by kind, symbolic in list sizes, the unbounded loop's line, tokens and dollars", () => {
    const folder = folderWith({ "review.prose": review, "hello.prose": 'session "Hello"\n' });
    const result = prosec(["cost", "."], folder);
    expect(result.status).toBe(EXIT.ok);
    expect(result.stdout).toContain(
      "hello.prose\n  model calls    ≤ 1 (sessions 1, judgments 0, choices 0, extractions 0, retries and re-asks 0)\n  critical path  ≤ 1 calls one after another\n",
    );
    expect(result.stdout).toMatch(
      /hello\.prose\n(?:.*\n){2} {2}tokens {9}≈ [\d,]+ input \+ 1,000 output\n {2}cost {11}≈ \$0\.0\d\n/,
    );
    expect(result.stdout).toContain(
      "review.prose\n  model calls    unbounded (sessions unbounded, judgments unbounded, choices 0, extractions 1, retries and re-asks unbounded)",
    );
    expect(result.stdout).toContain(
      "  unbounded      line 4: loop without (max: N)\n  |items|        the number of items in input items\n",
    );
    expect(result.stdout).toMatch(/Tokens assume each session's reply, and each value a prompt shows, is 1,000 tokens/);
    expect(result.stdout).toContain(
      "a judgment, choice or extraction counts 2 re-asks (`prosec run --reasks` sets how many)",
    );
    // Every option the report names is one of the command it names: `prosec cost` has no --reasks.
    expect(prosec(["cost", "--reasks", "1", "."], folder).status).toBe(EXIT.usage);
    expect(prosec(["run", "--help"]).stdout).toContain("--reasks");
  });

  it("counts 2 re-asks for each judgment, choice and extraction in the retry term", () => {
    const folder = folderWith({
      "check.prose": 'let draft = session "Draft"\n  retry: 1\nif **the draft is ready**:\n  session "Ship it"\n',
    });
    const result = prosec(["cost", "check.prose"], folder);
    expect(result.stdout).toContain(
      "model calls    ≤ 6 (sessions 2, judgments 1, choices 0, extractions 0, retries and re-asks 3)\n  critical path  ≤ 6 calls one after another\n",
    );
  });

  it("--format json gives each bound as text and as data; PROSEC_PRICES prices a model the list does not", () => {
    const folder = folderWith({
      "local.prose": 'agent local:\n  model: "my-llama"\n  prompt: "You help."\nsession: local\n  prompt: "Hi"\n',
    });
    const unpriced = JSON.parse(prosec(["cost", "local.prose", "--format", "json"], folder).stdout) as {
      programs: Array<Record<string, unknown>>;
    };
    expect(unpriced.programs[0]).toEqual(
      expect.objectContaining({
        file: "local.prose",
        calls: 1,
        criticalPath: 1,
        dollars: null,
        unpriced: ["my-llama"],
      }),
    );
    expect((unpriced.programs[0]!["bound"] as { calls: object }).calls).toEqual({
      session: 1,
      judgment: 0,
      choice: 0,
      extraction: 0,
      retry: 0,
    });
    const priced = JSON.parse(
      prosec(["cost", "local.prose", "--format", "json"], folder, { PROSEC_PRICES: "my-llama=1000/0" }).stdout,
    ) as { programs: Array<Record<string, unknown>> };
    expect(priced.programs[0]!["dollars"]).toBeGreaterThan(0.4);
    expect(typeof priced.programs[0]!["dollars"]).toBe("number");
    expect(prosec(["cost", "local.prose"], folder, { PROSEC_PRICES: "my-llama=cheap" })).toEqual(
      expect.objectContaining({
        status: EXIT.usage,
        stderr: expect.stringContaining('PROSEC_PRICES: cannot read the price "my-llama=cheap"'),
      }),
    );
  });

  it("--format json gives numbers as numbers, a bound that depends on a list as its terms, and unbounded as such", () => {
    const folder = folderWith({
      "each.prose":
        'input items: "Things"\nfor item in items:\n  session "Look at {item}"\n  session "And again at {item}"\n',
      "forever.prose": 'loop until **done**:\n  session "Try"\n',
    });
    const report = JSON.parse(prosec(["cost", "each.prose", "forever.prose", "--format", "json"], folder).stdout) as {
      programs: Array<Record<string, unknown>>;
    };
    const [each, forever] = report.programs;
    // One extraction (and its 2 re-asks) reads the list out of the text input, then two sessions an item.
    expect(each!["calls"]).toEqual({ text: "3 + 2·|items|", sum: [3, { product: [2, { symbol: "|items|" }] }] });
    expect(each!["byKind"]).toEqual({
      session: { text: "2·|items|", product: [2, { symbol: "|items|" }] },
      judgment: 0,
      choice: 0,
      extraction: 1,
      retry: 2,
    });
    expect((each!["dollars"] as { text: string }).text).toMatch(/^\$[\d.]+ \+ \$[\d.]+·\|items\|$/);
    expect(forever!["calls"]).toBe("unbounded");
    expect(forever!["criticalPath"]).toBe("unbounded");
    expect((forever!["byKind"] as Record<string, unknown>)["extraction"]).toBe(0);
  });

  it("a program with errors: its diagnostics and exit 1", () => {
    const folder = folderWith({ "broken.prose": 'session "unterminated\n' });
    const result = prosec(["cost", "broken.prose"], folder);
    expect(result.status).toBe(EXIT.failed);
    expect(result.stderr).toMatch(/broken\.prose:1:\d+ error/);
  });
});

describe("prosec build --check and the bound", () => {
  it("says when a change raises a program's bound", () => {
    const folder = folderWith({ "flow.prose": 'session "One"\n' });
    expect(prosec(["build", "flow.prose"], folder).status).toBe(EXIT.ok);
    writeFileSync(join(folder, "flow.prose"), 'session "One"\nrepeat 3:\n  session "Again"\n');
    const raised = prosec(["build", "--check", "flow.prose"], folder);
    expect(raised.status).toBe(EXIT.failed);
    expect(raised.stdout).toContain(
      "stale: flow.prose.ts (run `prosec build`)\n  the change raises its cost bound: sessions 1 → 4, critical path 1 → 4\n",
    );
    writeFileSync(join(folder, "flow.prose"), '# a comment only\nsession "One"\n');
    const same = prosec(["build", "--check", "flow.prose"], folder);
    expect(same.stdout).toContain("stale: flow.prose.ts");
    expect(same.stdout).not.toContain("raises its cost bound");
  });
});
