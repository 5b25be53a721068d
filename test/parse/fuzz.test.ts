import { describe, expect, it } from "vitest";
import { parse } from "../../src/phases/1-parse/index.js";
import { corpusPrograms } from "../support/corpus.js";
import { pick, seededRandom } from "../support/random.js";

type Mutation = (lines: string[], random: () => number) => string[];

const at = (random: () => number, length: number) => Math.floor(random() * Math.max(length, 1));

const mutations: Record<string, Mutation> = {
  deleteLine: (lines, random) => lines.toSpliced(at(random, lines.length), 1),
  duplicateLine: (lines, random) => {
    const index = at(random, lines.length);
    return lines.toSpliced(index, 0, lines[index] ?? "");
  },
  swapLines: (lines, random) => {
    const copy = [...lines];
    const a = at(random, copy.length);
    const b = at(random, copy.length);
    [copy[a], copy[b]] = [copy[b] ?? "", copy[a] ?? ""];
    return copy;
  },
  reindent: (lines, random) => {
    const index = at(random, lines.length);
    const indentation = pick(random, ["", " ", "   ", "\t", "        ", "  \t "]);
    return lines.with(index, indentation + (lines[index] ?? "").trimStart());
  },
  deleteCharacter: (lines, random) => editCharacter(lines, random, (line, column) => line.slice(0, column) + line.slice(column + 1)),
  duplicateCharacter: (lines, random) => editCharacter(lines, random, (line, column) => line.slice(0, column + 1) + line.slice(column)),
  swapCharacters: (lines, random) =>
    editCharacter(lines, random, (line, column) => line.slice(0, column) + line.slice(column + 1, column + 2) + line.slice(column, column + 1) + line.slice(column + 2)),
  insertSyntax: (lines, random) =>
    editCharacter(lines, random, (line, column) => line.slice(0, column) + pick(random, ['"', '"""', "***", "**", "{", "(", "]", ":", "\\", "#", "->", "|", "\r"]) + line.slice(column)),
  truncate: (lines, random) => {
    const text = lines.join("\n");
    return text.slice(0, at(random, text.length)).split("\n");
  },
};

function editCharacter(lines: string[], random: () => number, edit: (line: string, column: number) => string): string[] {
  const index = at(random, lines.length);
  const line = lines[index] ?? "";
  return lines.with(index, edit(line, at(random, line.length)));
}

describe("fuzzing the parser with mutated corpus programs", () => {
  it("never throws or hangs, and every diagnostic has a code and a location inside the file", () => {
    const random = seededRandom(20261122);
    const names = Object.keys(mutations);
    let withDiagnostics = 0;
    const runs = 2500;
    for (let run = 0; run < runs; run++) {
      const program = pick(random, corpusPrograms);
      let lines = program.source.split("\n");
      const edits = 1 + at(random, 3);
      for (let edit = 0; edit < edits; edit++) lines = mutations[pick(random, names)]!(lines, random);
      const source = lines.join("\n");

      const result = parse(source);

      const lineCount = source.split("\n").length;
      for (const diagnostic of result.diagnostics) {
        const where = `run ${run} (${program.name}): ${diagnostic.code} ${diagnostic.message}`;
        expect(diagnostic.code, where).toMatch(/^E00[1245]$/);
        expect(diagnostic.range.start.line, where).toBeGreaterThanOrEqual(1);
        expect(diagnostic.range.end.line, where).toBeLessThanOrEqual(lineCount);
        expect(diagnostic.range.start.offset, where).toBeLessThanOrEqual(diagnostic.range.end.offset);
        expect(diagnostic.range.end.offset, where).toBeLessThanOrEqual(source.length);
      }
      if (result.diagnostics.length > 0) withDiagnostics++;
    }
    // The mutations must really break programs, or this test proves nothing.
    expect(withDiagnostics).toBeGreaterThan(runs / 4);
  });
});
