import { describe, expect, it } from "vitest";
import { parse } from "../../src/phases/1-parse/index.js";
import { corpusPrograms, roadmapSketches } from "../support/corpus.js";

describe("corpus", () => {
  it("has the 50 example programs and 4 roadmap sketches", () => {
    expect(corpusPrograms).toHaveLength(50);
    expect(roadmapSketches).toHaveLength(4);
  });

  it.each(corpusPrograms.map((program) => [program.name, program] as const))(
    "%s parses with exactly one parse and no diagnostics",
    (_name, program) => {
      const ambiguities: number[] = [];
      const result = parse(program.source, { onAmbiguity: (range) => ambiguities.push(range.start.line) });
      expect(result.diagnostics).toEqual([]);
      expect(ambiguities).toEqual([]);
      expect(result.ast.body.length).toBeGreaterThan(0);
    },
  );

  it.each(roadmapSketches.map((program) => [program.name, program] as const))(
    "%s never crashes, and any diagnostic is located inside the file",
    (_name, program) => {
      const result = parse(program.source);
      const lines = program.source.split("\n").length;
      for (const diagnostic of result.diagnostics) {
        expect(diagnostic.code).toMatch(/^E00[1245]$/);
        expect(diagnostic.range.start.line).toBeLessThanOrEqual(lines);
      }
    },
  );

  it("rejects the sketch syntax of the roadmap programs with clear syntax errors", () => {
    const messages = roadmapSketches.flatMap((program) =>
      parse(program.source).diagnostics.map(
        (d) => `${program.name}:${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`,
      ),
    );
    expect(messages).toContain("roadmap/simple-pipeline.prose:16:1 E004 a line cannot start with `->`");
    expect(messages.some((m) => m.startsWith("roadmap/parallel-review.prose:15:21 E004"))).toBe(true);
    expect(
      messages.filter((m) => m.startsWith("roadmap/syntax/open-prose-syntax.prose")).length,
    ).toBeGreaterThanOrEqual(3);
  });

  it("accepts roadmap/iterative-refinement.prose: its syntax is all in the language (an unbounded loop is a warning, not a syntax error)", () => {
    const sketch = roadmapSketches.find((program) => program.name === "roadmap/iterative-refinement.prose")!;
    expect(parse(sketch.source).diagnostics).toEqual([]);
  });
});
