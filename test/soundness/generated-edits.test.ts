/**
 * Properties of generated programs that need no model, in process: compiling never throws and gives
 * the same module byte for byte a second time; and a generated program broken by one edit of the
 * kinds people make (a colon deleted, a line indented wrongly, a name nobody bound, a stray `**`)
 * always gets an error that says where (file, line, column), with its code and a code frame, never an
 * internal error. generated.slow.test.ts type-checks and runs the programs that compile.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type * as ast from "../../src/ast.js";
import { compile, type ImportResolution } from "../../src/compile.js";
import { diagnosticCodes } from "../../src/diagnostics/codes.js";
import type { Diagnostic } from "../../src/diagnostics/diagnostic.js";
import { formatDiagnostic } from "../../src/diagnostics/format.js";
import { checkSource } from "../../src/pipeline.js";
import { importedFile, importInterface } from "../../src/project/imports.js";
import { walk } from "../../src/walk.js";
import { generateProgram } from "../support/program-generator.js";
import { pick, seededRandom } from "../support/random.js";
import { temporaryFolder } from "../support/temp.js";

const seeds = Array.from({ length: Number(process.env["PROSEC_EDIT_SEEDS"] ?? 40) }, (_, index) => index + 1);

/** A generated program on disk (its helper beside it), and how to compile its main file. */
function written(seed: number): { readonly source: string; compile(source: string): ReturnType<typeof compile> } {
  const program = generateProgram(seed, 6 + (seed % 5), 1 + (seed % 4));
  const folder = temporaryFolder("prosec-edits-");
  for (const [name, text] of Object.entries(program.files)) writeFileSync(join(folder, name), text);
  const main = join(folder, "main.prose");
  const interfaces = new Map<string, ImportResolution>();
  return {
    source: program.files["main.prose"]!,
    compile: (source) =>
      compile(source, "main.prose", {
        resolveImport: (use) => importInterface(importedFile(main, use), interfaces, folder),
      }),
  };
}

/** The lines (0-based) that begin a statement, outside multi-line strings and discretions. */
function statementLines(source: string): number[] {
  const lines = source.split("\n");
  const found = new Set<number>();
  for (const statement of checkSource(source).ast.body)
    walk(statement, (node) => {
      if ("kind" in node && /Statement$|^(Binding|Output|If|Throw|Assert|Return|Break|Continue)$/.test(node.kind))
        found.add((node as ast.Node).loc.start.line - 1);
      return true;
    });
  return [...found].filter((line) => !/"""|\*\*\*|\*\*\s*$|#/.test(lines[line]!)).sort((a, b) => a - b);
}

type Edit = (lines: readonly string[], random: () => number, candidates: readonly number[]) => string[] | undefined;

/** Edits that break a program wherever they land: each must be reported as an error. */
const edits: Record<string, Edit> = {
  "a block header's colon deleted": (lines, random) => {
    const headers = lines.flatMap((line, index) =>
      /^\s*(if|elif|else|for|parallel|repeat|loop|try|catch|finally|do|block|choice|option)\b.*:\s*$/.test(line) &&
      !line.includes('"""')
        ? [index]
        : [],
    );
    if (headers.length === 0) return undefined;
    const index = pick(random, headers);
    return lines.with(index, lines[index]!.replace(/:\s*$/, ""));
  },
  // A statement after a sibling (not the first of its body, whose indentation is free).
  "a statement indented by one space": (lines, random, candidates) => {
    const indent = (line: string) => /^\s*/.exec(line)![0];
    const siblings = candidates.filter(
      (index) => candidates.includes(index - 1) && indent(lines[index - 1]!) === indent(lines[index]!),
    );
    if (siblings.length === 0) return undefined;
    const index = pick(random, siblings);
    return lines.with(index, ` ${lines[index]!}`);
  },
  "a name nobody bound": (lines, random, candidates) => {
    const index = pick(random, candidates);
    const indent = /^\s*/.exec(lines[index]!)![0];
    return lines.toSpliced(index, 0, `${indent}let probe-value = nobody-bound-this + 1`);
  },
  "a stray `**`": (lines, random, candidates) => {
    const index = pick(random, candidates);
    return lines.with(index, `${lines[index]!.trimEnd()} **`);
  },
};

/** Everything a person needs to find and fix the problem, as `prosec check` prints it. */
function assertLocated(diagnostic: Diagnostic, source: string, where: string): void {
  const lineCount = source.split("\n").length;
  expect(Object.keys(diagnosticCodes), where).toContain(diagnostic.code);
  expect(diagnostic.range.start.line, where).toBeGreaterThanOrEqual(1);
  expect(diagnostic.range.start.line, where).toBeLessThanOrEqual(lineCount);
  expect(diagnostic.range.start.column, where).toBeGreaterThanOrEqual(1);
  const printed = formatDiagnostic("main.prose", source, diagnostic);
  expect(printed.split("\n")[0], where).toBe(
    `main.prose:${diagnostic.range.start.line}:${diagnostic.range.start.column} ${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`,
  );
  // The code frame marks the line: `> 12 | ...`.
  expect(printed, where).toMatch(new RegExp(`^> +${diagnostic.range.start.line} \\|`, "m"));
}

describe("generated programs", () => {
  it("compile to the same module twice; their diagnostics all say where", async () => {
    let compiled = 0;
    for (const seed of seeds) {
      const program = written(seed);
      const first = await program.compile(program.source);
      const second = await program.compile(program.source);
      expect(second.code, `seed ${seed}`).toBe(first.code);
      expect(second.diagnostics, `seed ${seed}`).toEqual(first.diagnostics);
      for (const diagnostic of first.diagnostics) assertLocated(diagnostic, program.source, `seed ${seed}`);
      if (first.code !== undefined) compiled++;
    }
    // Mostly valid programs, or the property holds of nothing.
    expect(compiled).toBeGreaterThan(seeds.length / 2);
  });

  it.each(Object.keys(edits))(
    "with %s always get an error with a code frame, never an internal error",
    async (name) => {
      const random = seededRandom(name.length * 7919);
      let edited = 0;
      for (const seed of seeds) {
        const program = written(seed);
        const lines = program.source.split("\n");
        const candidates = statementLines(program.source);
        if (candidates.length === 0) continue;
        const changed = edits[name]!(lines, random, candidates);
        if (changed === undefined) continue;
        edited++;
        const source = changed.join("\n");
        const where = `seed ${seed}, ${name}:\n${source}`;
        const result = await program.compile(source);
        expect(result.code, where).toBeUndefined();
        const errors = result.diagnostics.filter((diagnostic) => diagnostic.severity === "error");
        expect(errors.length, where).toBeGreaterThan(0);
        for (const diagnostic of result.diagnostics) assertLocated(diagnostic, source, where);
      }
      expect(edited).toBeGreaterThan(seeds.length / 2);
    },
  );
});
