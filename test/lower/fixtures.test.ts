import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build, type BuildResult } from "../../src/project/build.js";
import { temporaryFolder } from "../support/temp.js";

const fixtures = fileURLToPath(new URL("../../fixtures/", import.meta.url));
const snapshots = fileURLToPath(new URL("../../snapshots/", import.meta.url));

function fixtureFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? fixtureFiles(join(directory, entry.name))
        : entry.name.endsWith(".prose")
          ? [join(directory, entry.name)]
          : [],
    )
    .sort();
}

const names = fixtureFiles(fixtures).map((file) => relative(fixtures, file));
let outDir: string;
let result: BuildResult;

beforeAll(async () => {
  outDir = temporaryFolder("prosec-fixtures-");
  result = await build([fixtures], { outDir, typecheck: true, force: true });
}, 60_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("fixtures lower to the committed TypeScript", () => {
  it("builds every fixture without errors, and the modules type-check (strict)", () => {
    expect(
      result.programs.flatMap((program) => program.diagnostics.filter((diagnostic) => diagnostic.severity === "error")),
    ).toEqual([]);
    expect(result.typeErrors).toEqual([]);
    expect(result.exitCode).toBe(0);
    expect(result.programs.map((program) => program.status)).toEqual(names.map(() => "written"));
  });

  it.each(names)("%s", async (name) => {
    const code = readFileSync(join(outDir, `${name}.ts`), "utf8");
    await expect(code).toMatchFileSnapshot(join(snapshots, `${name}.ts`));
  });
});
