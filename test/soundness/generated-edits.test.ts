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
import { compile, type ImportResolution } from "../../src/compile.js";
import { diagnosticCodes } from "../../src/diagnostics/codes.js";
import type { Diagnostic } from "../../src/diagnostics/diagnostic.js";
import { formatDiagnostic } from "../../src/diagnostics/format.js";
import { importedFile, importInterface } from "../../src/project/imports.js";
import { generateProgram } from "../support/program-generator.js";
import { edited, edits } from "../support/program-edits.js";
import { seededRandom } from "../support/random.js";
import { temporaryFolder } from "../support/temp.js";

const seeds = Array.from({ length: Number(process.env["PROSEC_EDIT_SEEDS"] ?? 40) }, (_, index) => index + 1);

/** Constructs the generator writes since the fifth review round, each in some program that compiles. */
const newerConstructs: Record<string, RegExp> = {
  destructuring: /^\s*(let|const) \{ /m,
  "shorthand record": /= .*\{ [\w-]+, [\w-]+(\.key)?(, [\w-]+\.key)? \}/,
  "empty list": /\[\]/,
  "typed filter verdict": /\| filter:\n(\s+session .*\n(\s+\w+: .*\n)*)?\s+returns: boolean/,
};

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
    const constructs = new Set<string>();
    for (const seed of seeds) {
      const program = written(seed);
      const first = await program.compile(program.source);
      if (first.code !== undefined)
        for (const [construct, pattern] of Object.entries(newerConstructs))
          if (pattern.test(program.source)) constructs.add(construct);
      const second = await program.compile(program.source);
      expect(second.code, `seed ${seed}`).toBe(first.code);
      expect(second.diagnostics, `seed ${seed}`).toEqual(first.diagnostics);
      for (const diagnostic of first.diagnostics) assertLocated(diagnostic, program.source, `seed ${seed}`);
      if (first.code !== undefined) compiled++;
    }
    // Mostly valid programs, or the property holds of nothing; among them, the newer constructs.
    expect(compiled).toBeGreaterThan(seeds.length / 2);
    expect([...constructs].sort()).toEqual(Object.keys(newerConstructs).sort());
  });

  it.each(Object.keys(edits))(
    "with %s always get an error with a code frame, never an internal error",
    async (name) => {
      const random = seededRandom(name.length * 7919);
      let count = 0;
      for (const seed of seeds) {
        const program = written(seed);
        const source = edited(program.source, name, random);
        if (source === undefined) continue;
        count++;
        const where = `seed ${seed}, ${name}:\n${source}`;
        const result = await program.compile(source);
        expect(result.code, where).toBeUndefined();
        const errors = result.diagnostics.filter((diagnostic) => diagnostic.severity === "error");
        expect(errors.length, where).toBeGreaterThan(0);
        for (const diagnostic of result.diagnostics) assertLocated(diagnostic, source, where);
      }
      expect(count).toBeGreaterThan(seeds.length / 2);
    },
  );
});
