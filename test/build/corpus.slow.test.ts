import { rmSync } from "node:fs";
import { afterAll, expect, it } from "vitest";
import { build } from "../../src/project/build.js";
import { corpusPrograms } from "../support/corpus.js";
import { temporaryFolder } from "../support/temp.js";

const outDir = temporaryFolder("prosec-corpus-");
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

it("builds every corpus program (roadmap sketches aside) and the modules type-check in strict mode", async () => {
  const result = await build(
    corpusPrograms.map((program) => program.path),
    { outDir, typecheck: true },
  );
  const errors = result.programs.flatMap((program) =>
    program.diagnostics
      .filter((diagnostic) => diagnostic.severity === "error")
      .map((diagnostic) => `${program.file}: ${diagnostic.code} ${diagnostic.message}`),
  );
  expect(errors).toEqual([]);
  expect(result.typeErrors).toEqual([]);
  expect(result.programs).toHaveLength(corpusPrograms.length);
  expect(result.programs.every((program) => program.status === "written")).toBe(true);
  expect(result.exitCode).toBe(0);
}, 120_000);
