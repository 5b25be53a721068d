/**
 * Names that could shadow what a generated module imports, or that are Object.prototype's members:
 * the module type-checks (ts-morph, so these are slow; names.test.ts holds the name table's own cases).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { runtimeImports } from "../../src/phases/3-transform/names.js";
import { typecheck } from "../../src/project/typecheck.js";
import { temporaryFolder } from "../support/temp.js";

describe("TypeScript names for .prose names, type-checked", () => {
  it("a binding named after anything the module imports from the runtime shadows none of it", async () => {
    // Each helper in use (a judgment: bindingsInOrder; arithmetic, comparison, interpolation; an agent
    // and a block: AgentDefinition, Runtime), and every runtime import bound as a name after it.
    const source = [
      'agent writer:\n  model: sonnet\n  prompt: "You write."',
      "block twice(n):\n  output n * 2",
      ...runtimeImports.map((name, index) => `let ${name} = ${index}`),
      'if **the plan is ready** and text - 1 < add / 2 and equals == compare:\n  session: writer\n    prompt: "Go {startRun}"',
      "output total = do twice(bindingsInOrder) + multiply + subtract + divide",
    ].join("\n");
    const compiled = await compile(`${source}\n`, "imports.prose");
    expect(compiled.diagnostics).toEqual([]);
    const imported = /^import \{([^}]*)\} from "prosec\/runtime";$/m.exec(compiled.code!)![1]!;
    const body = compiled.code!.slice(compiled.code!.indexOf("export async function run"));
    for (const name of imported.split(",").map((each) => each.trim().replace(/^type /, "")))
      expect(body, name).not.toMatch(new RegExp(`(const|let) ${name} = `));
    const path = join(temporaryFolder("prosec-import-names-"), "imports.prose.ts");
    expect(await typecheck([{ path, code: compiled.code! }])).toEqual([]);
  }, 60_000);

  it("inputs named after Object.prototype members, asked mid-program, type-check", async () => {
    const members = Object.getOwnPropertyNames(Object.prototype);
    const asked = compile(
      ['session "first"', ...members.map((name) => `input ${name}: "${name}?"`), `output o = [${members.join(", ")}]`]
        .join("\n")
        .concat("\n"),
      "asked.prose",
    );
    const plain = compile('session "first"\ninput topic: "Topic?"\noutput o = topic\n', "plain.prose");
    const [withMembers, without] = await Promise.all([asked, plain]);
    expect(withMembers.diagnostics).toEqual([]);
    expect(withMembers.code).toContain("run(inputs: Inputs = {} as Inputs,");
    // Only where it is needed: other modules keep the plain default.
    expect(without.code).toContain("run(inputs: Inputs = {},");
    const folder = temporaryFolder("prosec-prototype-inputs-");
    expect(await typecheck([{ path: join(folder, "asked.prose.ts"), code: withMembers.code! }])).toEqual([]);
  }, 60_000);
});
