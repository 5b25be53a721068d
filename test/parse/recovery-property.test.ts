/**
 * The error-recovery property: damaging one line of a corpus program never crashes the compiler,
 * always reports the damage, and causes nothing else (every other diagnostic was already there).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Statement } from "../../src/ast.js";
import type { Diagnostic } from "../../src/diagnostics/diagnostic.js";
import { checkSource } from "../../src/pipeline.js";
import { walk } from "../../src/walk.js";
import { corpusPrograms } from "../support/corpus.js";
import { pick, seededRandom } from "../support/random.js";

/**
 * Ways to break the statement a line begins, each a syntax error wherever it stands. Replacing the
 * whole line also removes the name it binds (or, for `do`, the block bindings it makes readable),
 * so that is only done to lines that bind none.
 */
const damages: ReadonlyArray<(indent: string, text: string) => string | undefined> = [
  (indent, text) => `${indent}${text} %%`,
  (indent, text) => `${indent}${text} +* 1`,
  (indent, text) => (bindsName(text) ? undefined : `${indent}frobnicate the %% thing`),
];

function bindsName(text: string): boolean {
  return /^(?:let|const|output|input|agent|block|use|import|do)\b|^[\p{L}_][\p{L}\p{N}_-]*\s*=[^=]/u.test(text);
}

const syntaxCodes = new Set(["E001", "E002", "E004", "E005"]);
const runs = Number(process.env.PROSEC_RECOVERY_RUNS ?? 300);

/** The 1-based lines that begin a statement at any depth, outside multi-line strings. */
function statementLines(body: readonly Statement[], source: readonly string[]): number[] {
  const found = new Set<number>();
  for (const statement of body) {
    walk(statement, (node) => {
      if ("kind" in node && isStatement(node as Statement)) found.add(node.loc.start.line);
      return true;
    });
  }
  // On a line that opens a string or a discretion over several lines, or ends in a comment, damage would be text.
  return [...found].filter((line) => !/"""|\*\*\*|\*\*\s*$|#/u.test(source[line - 1]!)).sort((a, b) => a - b);
}

const statementKinds = new Set([
  "Use",
  "Import",
  "Input",
  "Output",
  "Agent",
  "Block",
  "Binding",
  "ExpressionStatement",
  "If",
  "Choice",
  "Throw",
  "Assert",
  "Return",
  "Break",
  "Continue",
]);

function isStatement(node: Statement): boolean {
  return statementKinds.has(node.kind);
}

const placeAndCode = (d: Diagnostic) => `${d.range.start.line}:${d.range.start.column} ${d.code}`;
const describeDiagnostic = (d: Diagnostic) => `${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`;

/** Programs with `return`, `break` and `continue` in every place they may stand (the corpus has none). */
const jumpPrograms = ["jumps.prose", "loops.prose", "pipelines.prose"].map((name) => ({
  name: `fixtures/${name}`,
  source: readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8"),
}));

describe("error recovery on damaged programs", () => {
  it("corpus programs: never crashes, always reports the damaged line, and causes no other diagnostic", () => {
    const clean = corpusPrograms
      .map((program) => ({ program, checked: checkSource(program.source) }))
      .filter(({ checked }) => checked.complete);
    expect(clean.length).toBeGreaterThan(40);
    damageEach(clean, seededRandom(20261123), runs);
  });

  it("programs that return, break and continue: the same, whichever line around a jump is damaged", () => {
    const clean = jumpPrograms.map((program) => ({ program, checked: checkSource(program.source) }));
    expect(clean.every(({ checked }) => checked.complete)).toBe(true);
    damageEach(clean, seededRandom(20261126), Math.ceil(runs / 5));
  });
});

function damageEach(
  clean: ReadonlyArray<{ program: { name: string; source: string }; checked: ReturnType<typeof checkSource> }>,
  random: () => number,
  runs: number,
): void {
  for (let run = 0; run < runs; run++) {
    const { program, checked } = pick(random, clean);
    const lines = program.source.split("\n");
    const line = pick(random, statementLines(checked.ast.body, lines));
    const [, indent = "", text = ""] = /^(\s*)(.*)$/u.exec(lines[line - 1]!)!;
    const damaged = [...lines];
    damaged[line - 1] = pick(random, damages)(indent, text) ?? `${indent}${text} %%`;
    const where = `run ${run}: ${program.name} line ${line}: ${damaged[line - 1]}`;

    const result = checkSource(damaged.join("\n"));

    expect(result.complete, where).toBe(false);
    const syntax = result.diagnostics.filter((d) => syntaxCodes.has(d.code));
    expect(syntax.map(describeDiagnostic), where).toContainEqual(expect.stringMatching(new RegExp(`^${line}:`)));
    // Nothing but the damage is new: what the skipped statement would have bound still counts as bound.
    // (A message may name another block once the one it named is skipped: where and what is compared.)
    const before = new Set(checked.diagnostics.map(placeAndCode));
    const caused = result.diagnostics.filter(
      (d) => !syntaxCodes.has(d.code) && d.range.start.line !== line && !before.has(placeAndCode(d)),
    );
    expect(caused.map(describeDiagnostic), where).toEqual([]);
  }
}
