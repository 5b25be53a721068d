/**
 * Generated programs broken by one edit (test/support/program-edits.ts), through the CLI as a user
 * meets them: `prosec check` exits 1 (never 3, an internal error) and prints, for every broken file,
 * errors with file, line, column, code and a code frame; `prosec build` writes no module for them.
 * generated-edits.test.ts holds the same property in process, over more programs.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { prosec } from "../support/cli.js";
import { edited, edits } from "../support/program-edits.js";
import { generateProgram } from "../support/program-generator.js";
import { seededRandom } from "../support/random.js";
import { temporaryFolder } from "../support/temp.js";

const root = temporaryFolder("prosec-edits-cli-");

/** One folder per broken program (its helper beside it); the paths of their main files, relative to `root`. */
function brokenPrograms(): string[] {
  const random = seededRandom(20261129);
  const mains: string[] = [];
  for (let seed = 1; seed <= 10; seed++) {
    const program = generateProgram(seed, 6 + (seed % 5), 1 + (seed % 4));
    for (const name of Object.keys(edits)) {
      const source = edited(program.files["main.prose"]!, name, random);
      if (source === undefined) continue;
      const folder = `seed-${seed}-${mains.length}`;
      mkdirSync(join(root, folder));
      writeFileSync(join(root, folder, "helper.prose"), program.files["helper.prose"]!);
      writeFileSync(join(root, folder, "main.prose"), source);
      mains.push(`${folder}/main.prose`);
    }
  }
  return mains;
}

interface JsonFile {
  readonly file: string;
  readonly diagnostics: readonly { code: string; severity: string; line: number; column: number }[];
}

describe("generated programs with one bad edit, through the CLI", () => {
  const mains = brokenPrograms();

  it("check exits 1 and reports every file with located, coded errors and a code frame", () => {
    expect(mains.length).toBeGreaterThan(20);
    const json = prosec(["check", "--format", "json", ...mains], root);
    expect(json.status, json.stderr).toBe(EXIT.failed);
    const files = (JSON.parse(json.stdout) as { files: JsonFile[] }).files;
    for (const main of mains) {
      const errors = files.find((file) => file.file === main)?.diagnostics.filter((d) => d.severity === "error");
      expect(errors?.length, main).toBeGreaterThan(0);
      for (const error of errors!) {
        expect(error.code, main).toMatch(/^[EPW]\d{3}$/);
        expect(error.line, main).toBeGreaterThan(0);
        expect(error.column, main).toBeGreaterThan(0);
      }
    }
    const text = prosec(["check", ...mains], root);
    expect(text.status, text.stderr).toBe(EXIT.failed);
    expect(text.stderr).not.toContain("internal error");
    for (const main of mains) {
      const first = files.find((file) => file.file === main)!.diagnostics.find((d) => d.severity === "error")!;
      const heading = `${main}:${first.line}:${first.column} error ${first.code} `;
      expect(text.stdout, main).toContain(heading);
      // The heading is followed by the code frame marking that line.
      const after = text.stdout.slice(text.stdout.indexOf(heading)).split("\n").slice(1).join("\n");
      expect(after, main).toMatch(new RegExp(`^> +${first.line} \\|`, "m"));
    }
  });

  it("build exits 1 and writes no module for them", () => {
    const result = prosec(["build", ...mains], root);
    expect(result.status, result.stderr).toBe(EXIT.failed);
    expect(result.stderr).not.toContain("internal error");
    for (const main of mains) expect(existsSync(join(root, `${main}.ts`)), main).toBe(false);
  });
});
