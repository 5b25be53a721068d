/**
 * Generated modules are what a reviewer would write: they pass plain `@eslint/js` recommended +
 * `typescript-eslint` recommended (no project overrides, nothing ignored, inline directives off, so
 * a generated `/* eslint-disable *\/` could not hide anything), are formatted as prettier formats
 * them, and type-check with the strictest flags teams use. Over every module users see: the
 * committed snapshots, the example app's workflows and the 50 corpus programs built afresh, and a
 * program of over 2,000 top-level statements (its body runs in parts) that leaves agents, bindings
 * and loop items unused: a large program's module is as tidy as a small one's. Nothing strikes
 * anything from a module after lowering wrote it: this holds of what lowering writes.
 */
import js from "@eslint/js";
import { ESLint, type Linter } from "eslint";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as prettier from "prettier";
import tseslint from "typescript-eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "../../src/phases/1-parse/index.js";
import { PRETTIER_OPTIONS } from "../../src/phases/3-transform/index.js";
import { partThreshold } from "../../src/phases/3-transform/parts.js";
import { build } from "../../src/project/build.js";
import { typecheck, type EmittedModule } from "../../src/project/typecheck.js";
import { unreadProgram } from "../support/unread-program.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const corpus = join(root, "examples/openprose");
const outDir = mkdtempSync(join(tmpdir(), "prosec-generated-lint-"));
const largeDir = mkdtempSync(join(tmpdir(), "prosec-generated-lint-large-"));
const largeSource = unreadProgram(200);
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  rmSync(largeDir, { recursive: true, force: true });
});

/** The plain recommended configs, nothing of the repository's own. */
const plain = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [js.configs.recommended, ...(tseslint.configs.recommended as Linter.Config[])],
  ignore: false,
  allowInlineConfig: false,
});

function modulesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return modulesUnder(path);
      return entry.name.endsWith(".prose.ts") ? [path] : [];
    })
    .sort();
}

let modules: EmittedModule[] = [];

beforeAll(async () => {
  const programs = readdirSync(corpus)
    .filter((name) => name.endsWith(".prose"))
    .map((name) => join(corpus, name));
  const built = await build(programs, { outDir, force: true });
  expect(built.programs.filter((program) => program.status !== "written")).toEqual([]);
  writeFileSync(join(largeDir, "large.prose"), largeSource);
  const large = await build([join(largeDir, "large.prose")], { force: true });
  expect(large.programs.map((program) => program.status)).toEqual(["written"]);
  const committed = [...modulesUnder(join(root, "snapshots")), ...modulesUnder(join(root, "examples/app/src"))];
  modules = [...committed, ...modulesUnder(outDir), ...modulesUnder(largeDir)].map((path) => ({
    path,
    code: readFileSync(path, "utf8"),
  }));
}, 300_000);

/** Where a module is reported: the corpus modules as if built next to their programs, the large one at the root. */
function shownPath(path: string): string {
  if (path.startsWith(largeDir)) return join(root, relative(largeDir, path));
  return path.startsWith(outDir) ? join(corpus, relative(outDir, path)) : path;
}

describe("generated modules", () => {
  it("are 29 snapshots, 4 example-app workflows, 50 corpus modules and a program run in parts", () => {
    const count = (folder: string) =>
      modules.filter((module) => shownPath(module.path).startsWith(join(root, folder))).length;
    expect([count("snapshots"), count("examples/app"), count("examples/openprose")]).toEqual([29, 4, 50]);
    expect(parse(largeSource).ast.body.length).toBeGreaterThan(2_000);
    expect(partThreshold).toBeLessThan(2_000);
    const large = modules.filter((module) => module.path.startsWith(largeDir));
    expect(large.map((module) => module.code.includes("async function $chunk1()"))).toEqual([true]);
  });

  it("pass @eslint/js and typescript-eslint recommended with 0 problems", async () => {
    const results = (
      await Promise.all(
        modules.map((module) => plain.lintText(module.code, { filePath: shownPath(module.path), warnIgnored: true })),
      )
    ).flat();
    expect(results).toHaveLength(84);
    const problems = results.flatMap((result) =>
      result.messages.map(
        (message) =>
          `${relative(root, result.filePath)}:${message.line}: ${message.ruleId ?? "fatal"}: ${message.message}`,
      ),
    );
    expect(problems).toEqual([]);
  }, 300_000);

  it("are linted with inline directives off: a generated eslint-disable would not hide a problem", async () => {
    const [result] = await plain.lintText("/* eslint-disable */\nlet unused = 1;\n", {
      filePath: join(root, "snapshots/disabled.prose.ts"),
    });
    expect(result!.messages.map((message) => message.ruleId)).toEqual(
      expect.arrayContaining(["prefer-const", "@typescript-eslint/no-unused-vars"]),
    );
  });

  it("are formatted as prettier formats them", async () => {
    const unformatted = [];
    for (const module of modules)
      if (!(await prettier.check(module.code, { ...PRETTIER_OPTIONS })))
        unformatted.push(relative(root, shownPath(module.path)));
    expect(unformatted).toEqual([]);
  }, 120_000);

  it("type-check with noUnusedLocals, noUnusedParameters, noUncheckedIndexedAccess, exactOptionalPropertyTypes and noPropertyAccessFromIndexSignature", async () => {
    const errors = await typecheck(modules, { noUnused: true });
    expect(errors.map((error) => `${relative(root, shownPath(error.path))}:${error.line}: ${error.message}`)).toEqual(
      [],
    );
  }, 300_000);

  it("would fail on an unused parameter or local, an unchecked index or an optional property set to undefined", async () => {
    const code = [
      "export function f(xs: string[], unread: number): string {",
      "  const unused = 1;",
      "  const first: string = xs[0];",
      "  const options: { a?: string } = { a: undefined };",
      "  return first + String(options.a);",
      "}",
    ].join("\n");
    const errors = await typecheck([{ path: join(outDir, "strict.prose.ts"), code }], { noUnused: true });
    expect(errors.map((error) => error.line)).toEqual([1, 2, 3, 4]);
  }, 120_000);
});
