/**
 * Programs that make the compiler work hard, from someone else's project: each gets an answer or a
 * diagnostic, never an internal error. A recursive block's bound is unrolled level by level; it
 * overflowed the stack for `check` of a program that only imports it, and for `build`, `run`,
 * `cost` and `graph` of the program itself.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkProgram, costOfSource } from "../../src/compile.js";
import { checkSource } from "../../src/pipeline.js";
import { importResolver } from "../../src/project/imports.js";
import { formatCount } from "../../src/phases/2-analyze/cost/format.js";
import { temporaryFolder } from "../support/temp.js";

/** A recursion 100 deep (the default's depth) whose call sits under `ifs` nested ifs. */
function nestedRecursion(ifs: number): string {
  const lines = ["block dig(n) (max_depth: 100):"];
  for (let level = 1; level <= ifs; level++) lines.push(`${"  ".repeat(level)}if **go on**:`);
  lines.push(`${"  ".repeat(ifs + 1)}output do dig(n + 1)`, "", "output found = do dig(0)");
  return `${lines.join("\n")}\n`;
}

describe("a program that makes the compiler work hard", () => {
  it("is checked when it imports a deep recursion, with the imported program's bound", () => {
    const folder = temporaryFolder();
    writeFileSync(join(folder, "helper.prose"), nestedRecursion(12));
    const main = join(folder, "main.prose");
    const source = 'use "./helper" as helper\nlet r = helper()\nsession "Report {r.found}"\n';
    writeFileSync(main, source);
    const resolveImport = importResolver(main, new Map(), folder);
    const checked = checkProgram(source, { resolveImport }, "main.prose");
    expect(checked.diagnostics).toEqual([]);
    const cost = costOfSource(source, { resolveImport }, "main.prose").cost!;
    // 100 levels of 12 judgments, each with its 2 re-asks; the report's session.
    expect(formatCount(cost.calls.judgment)).toBe("1,200");
    expect(formatCount(cost.calls.session)).toBe("1");
  });

  it("has a bound when its recursion is 10,000 deep, and none past that", () => {
    const deep = (depth: number) =>
      costOfSource(`block dig(n) (max_depth: ${depth}):\n  session "Dig"\n  do dig(n)\ndo dig(1)\n`).cost!;
    expect(formatCount(deep(10_000).calls.session)).toBe("10,000");
    expect(deep(10_001).calls.session).toBe("unbounded");
    expect(deep(1_000_000_000_000).unbounded.map((entry) => entry.reason)).toEqual([
      "recursion through block dig unrolls past 10,000 block calls, too many to estimate",
    ]);
  });

  it("is checked in one pass over its calls when 3,000 blocks call each other last to first", () => {
    // Each round of a fixed point found one more block called: a minute for these 3,000.
    const lines: string[] = [];
    for (let index = 2999; index >= 0; index--)
      lines.push(`block b${index}():`, index === 2999 ? '  session "The end"' : `  output do b${index + 1}()`);
    const checked = checkSource(`${lines.join("\n")}\noutput last = do b0()\n`);
    expect(checked.diagnostics).toEqual([]);
    expect(checked.analysis.calledBlocks.size).toBe(3000);
  });

  it("finds a recursion through 2,000 blocks in one pass, and bounds it", () => {
    // Each block asked which blocks it reaches and which of those reach it back: minutes for 400.
    const lines: string[] = [];
    for (let index = 0; index < 2000; index++)
      lines.push(
        `block c${index}() (max_depth: 4):`,
        `  session "Step ${index}"`,
        `  output do c${(index + 1) % 2000}()`,
      );
    const cost = costOfSource(`${lines.join("\n")}\noutput last = do c0()\n`).cost!;
    expect(formatCount(cost.calls.session)).toBe("4");
    // Past 10,000 block calls unrolled, the bound gives up and says so.
    const deeper = costOfSource(
      `${lines.join("\n").replaceAll("max_depth: 4", "max_depth: 6")}\noutput last = do c0()\n`,
    );
    expect(deeper.cost!.calls.session).toBe("unbounded");
  });

  it("calls a recursion through 3,000 blocks unbounded, with or without max_depth", () => {
    // Each block's body was estimated inside its caller's: the stack overflowed (exit 3).
    for (const modifier of ["", " (max_depth: 5000)"]) {
      const lines: string[] = [];
      for (let index = 0; index < 3000; index++) {
        lines.push(`block c${index}()${modifier}:`);
        if (index === 7) lines.push('  session "The only call"');
        lines.push(`  output do c${(index + 1) % 3000}()`);
      }
      const cost = costOfSource(`${lines.join("\n")}\noutput last = do c0()\n`).cost!;
      expect(cost.calls.session).toBe("unbounded");
      // Every call inside the cycle is where it recurses; the one from outside is not.
      expect(cost.unbounded).toHaveLength(3000);
    }
  });
});
