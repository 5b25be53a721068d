/**
 * A `use` whose path names something that is not a regular file (a folder called `x.prose`, a fifo,
 * a device) is the importer's P030, as a missing file is, in check, build, cost and run alike: never
 * an internal error, a usage error or a read that blocks for ever. (The fifo, which would block the
 * process that reads it, is driven through the CLI in bad-input-cli.slow.test.ts.)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkPrograms } from "../../src/cli/check-command.js";
import { build } from "../../src/project/build.js";
import { importCycle, isProgramFile } from "../../src/project/imports.js";
import { compileClosure } from "../../src/run/compile-in-memory.js";
import { temporaryFolder } from "../support/temp.js";

function project(): string {
  const folder = temporaryFolder("prosec-use-folder-");
  mkdirSync(join(folder, "helper.prose"));
  writeFileSync(join(folder, "helper.prose", "inner.prose"), 'session "inside"\n');
  writeFileSync(join(folder, "main.prose"), 'use "./helper.prose" as helper\noutput o = helper()\n');
  return folder;
}

const where = (diagnostics: readonly { code: string; range: { start: { line: number; column: number } } }[]) =>
  diagnostics.map((diagnostic) => `${diagnostic.code} ${diagnostic.range.start.line}:${diagnostic.range.start.column}`);

describe("a `use` path that names a folder", () => {
  it("is P030 at the `use` in check", () => {
    const folder = project();
    const [main, ...others] = checkPrograms(["main.prose"], { cwd: folder });
    expect(others).toEqual([]);
    expect(where(main!.diagnostics)).toEqual(["P030 1:5"]);
    expect(main!.diagnostics[0]!.message).toContain("cannot read the imported program `./helper.prose`");
  });

  it("is P030 at the `use` in build, which writes nothing", async () => {
    const folder = project();
    const result = await build(["main.prose"], { cwd: folder });
    expect(result.programs.map((program) => [program.file, program.status, where(program.diagnostics)])).toEqual([
      ["main.prose", "failed", ["P030 1:5"]],
    ]);
  });

  it("is P030 at the `use` when the program is compiled to run", () => {
    const folder = project();
    const compiled = compileClosure("main.prose", folder, {});
    expect([...compiled.values()].map((file) => [file.file, where(file.diagnostics)])).toEqual([
      ["main.prose", ["P030 1:5"]],
    ]);
  });

  it("leads no cycle search into the folder", () => {
    const folder = project();
    expect(isProgramFile(join(folder, "helper.prose"))).toBe(false);
    expect(isProgramFile(join(folder, "main.prose"))).toBe(true);
    expect(importCycle(join(folder, "main.prose"), join(folder, "helper.prose"))).toBeUndefined();
  });
});
