/**
 * Generated programs (test/support/program-generator.ts) with their names renamed, seeded, to names
 * that could break the module: JavaScript and TypeScript reserved and contextual words, globals, what
 * a module imports from the runtime or declares itself, and `Object.prototype`'s members. Whatever
 * `check` accepts must compile, the same bytes twice, to modules that type-check in strict mode; no
 * diagnostic may quote JavaScript's own objects (`function Object() { [native code] }`).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { runtimeImports } from "../../src/phases/3-transform/names.js";
import { typecheck } from "../../src/project/typecheck.js";
import { generateProgram } from "../support/program-generator.js";
import { pick, seededRandom } from "../support/random.js";
import { temporaryFolder } from "../support/temp.js";

const hostile = [
  ...["class", "function", "await", "yield", "enum", "this", "super", "new", "typeof", "void", "delete"],
  ...["instanceof", "in", "of", "let", "static", "implements", "interface", "package", "private", "public"],
  ...["arguments", "eval", "undefined", "NaN", "Infinity", "globalThis", "Object", "Array", "Promise", "JSON"],
  ...["async", "as", "from", "type", "keyof", "never", "unknown", "any", "string", "number", "boolean"],
  ...["declare", "namespace", "module", "require", "exports", "import", "export", "with", "debugger", "var"],
  ...["const", "while", "switch", "case", "Record", "Readonly", "Date", "console", "process", "Map", "Set"],
  ...["program", "run", "rt", "inputs", "options", "Inputs", "Outputs", "default", "then", "get", "set"],
  ...["item", "index", "error", "results", "sequence", "bindings", "loop", "iteration"],
  ...runtimeImports,
  ...Object.getOwnPropertyNames(Object.prototype),
];

/** The generator's names: a word and a number written twice (`draft-1212`). */
const generatedName = /\b(?:alpha|beta|gamma|delta|notes|draft|plan|result|items|score|topic|summary)-?\d+\b/g;

function renamed(seed: number, random: () => number): string {
  const source = generateProgram(seed, 5 + (seed % 4), 1 + (seed % 3))
    .files["main.prose"]!.replace(/^use .*$/m, "")
    .replace(/helper\([^)]*\)/g, '"no helper"');
  const names = new Map<string, string>();
  return source.replace(generatedName, (name) => {
    if (!names.has(name)) names.set(name, pick(random, hostile));
    return names.get(name)!;
  });
}

describe("generated programs with hostile names (seed 99)", () => {
  it("compile deterministically to modules that type-check, with no JavaScript internals in a message", async () => {
    const random = seededRandom(99);
    const folder = temporaryFolder("prosec-hostile-names-");
    const modules: { path: string; code: string }[] = [];
    for (let seed = 1; seed <= 150; seed++) {
      const source = renamed(seed, random);
      const compiled = await compile(source, "main.prose");
      for (const diagnostic of compiled.diagnostics)
        expect(`${diagnostic.message} ${diagnostic.hint ?? ""}`, `seed ${seed}`).not.toMatch(
          /native code|\[object |function \w*\(/,
        );
      if (compiled.code === undefined) continue;
      if (seed % 10 === 0) expect((await compile(source, "main.prose")).code, `seed ${seed}`).toBe(compiled.code);
      modules.push({ path: join(folder, `seed-${seed}.prose.ts`), code: compiled.code });
    }
    // Most programs are accepted: else this proves little.
    expect(modules.length).toBeGreaterThan(50);
    expect(await typecheck(modules)).toEqual([]);
  }, 300_000);
});
