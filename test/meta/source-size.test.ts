/**
 * Small modules: no source file in src/ or runtime/ over 450 lines, no class over 30 methods. A
 * module that grows past either is split by concept (runtime/run/ shows how), not cut mechanically.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const MAX_LINES = 450;
const MAX_METHODS = 30;

/** One type per AST node kind, one re-export hub, one catalogue of every message: long by design. */
const LONG_BY_DESIGN = new Set(["src/ast.ts", "runtime/types.ts", "src/diagnostics/messages.ts"]);

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const files = ["src", "runtime"].flatMap((folder) => sources(join(root, folder)));

function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Each class of a module with the number of its methods (constructor and accessors included). */
function classSizes(file: string, text: string): { name: string; methods: number }[] {
  const sizes: { name: string; methods: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassLike(node)) {
      const methods = node.members.filter(
        (member) =>
          ts.isMethodDeclaration(member) ||
          ts.isConstructorDeclaration(member) ||
          ts.isGetAccessorDeclaration(member) ||
          ts.isSetAccessorDeclaration(member),
      ).length;
      sizes.push({ name: `${relative(root, file)}: ${node.name?.text ?? "(anonymous class)"}`, methods });
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return sizes;
}

describe("source size", () => {
  it("counts lines and methods as meant", () => {
    expect(lineCount("a\nb\n")).toBe(2);
    expect(lineCount("a\nb")).toBe(2);
    const sizes = classSizes(
      join(root, "x.ts"),
      "class A { constructor() {} get b() { return 1; } c() {} d = () => 1; }",
    );
    expect(sizes).toEqual([{ name: "x.ts: A", methods: 3 }]);
  });

  it(`no source file in src/ or runtime/ is over ${MAX_LINES} lines`, () => {
    expect(files.length).toBeGreaterThan(200);
    const long = files
      .filter((file) => !LONG_BY_DESIGN.has(relative(root, file)))
      .map((file) => ({ file: relative(root, file), lines: lineCount(readFileSync(file, "utf8")) }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it(`no class in src/ or runtime/ has over ${MAX_METHODS} methods`, () => {
    const sizes = files.flatMap((file) => classSizes(file, readFileSync(file, "utf8")));
    expect(sizes.length).toBeGreaterThan(20);
    expect(sizes.filter(({ methods }) => methods > MAX_METHODS)).toEqual([]);
  });
});
