import { describe, expect, it } from "vitest";
import { parse } from "../../src/phases/1-parse/index.js";
import { corpusPrograms } from "../support/corpus.js";
import { at, mutations } from "../support/mutations.js";
import { pick, seededRandom } from "../support/random.js";
import { caseCount } from "../support/edit-loop.js";

describe("fuzzing the parser with mutated corpus programs", () => {
  it("never throws or hangs, and every diagnostic has a code and a location inside the file", () => {
    const random = seededRandom(20261122);
    const names = Object.keys(mutations);
    let withDiagnostics = 0;
    const runs = caseCount(2500);
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
