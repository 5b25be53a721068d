import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { NameTable, runtimeImports, type Namespace } from "../../src/phases/3-transform/names.js";
import { typecheck } from "../../src/project/typecheck.js";
import { temporaryFolder } from "../support/temp.js";

function table(...names: Array<[Namespace, string]>): NameTable {
  return new NameTable(names);
}

describe("TypeScript names for .prose names", () => {
  it("keeps plain names and camel-cases hyphenated ones", () => {
    const names = table(["value", "draft"], ["value", "security-reviewer"], ["value", "a-b-c"]);
    expect(names.get("value", "draft")).toBe("draft");
    expect(names.get("value", "security-reviewer")).toBe("securityReviewer");
    expect(names.get("value", "a-b-c")).toBe("aBC");
  });

  it("never yields a reserved word, a global the module uses, or one of the module's own names", () => {
    const words = [
      "class",
      "await",
      "yield",
      "let",
      "undefined",
      "Promise",
      "rt",
      "text",
      "inputs",
      "options",
      "program",
      "run",
      "add",
      "Value",
    ];
    const names = table(...words.map((word) => ["value", word] as [Namespace, string]));
    for (const word of words) expect(names.get("value", word)).toBe(`${word}$`);
  });

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

  it("resolves collisions whatever order the names come in: a plain name keeps its spelling", () => {
    for (const order of [
      [
        ["value", "market-trends"],
        ["value", "marketTrends"],
      ],
      [
        ["value", "marketTrends"],
        ["value", "market-trends"],
      ],
    ] as Array<Array<[Namespace, string]>>) {
      const names = new NameTable(order);
      expect(names.get("value", "marketTrends")).toBe("marketTrends");
      expect(names.get("value", "market-trends")).toBe("market$trends");
    }
  });

  it("gives an agent or a block that shares a binding's name a distinct name", () => {
    const names = table(["value", "review"], ["agent", "review"], ["block", "review"]);
    const all = [names.get("value", "review"), names.get("agent", "review"), names.get("block", "review")];
    expect(all[0]).toBe("review");
    expect(new Set(all).size).toBe(3);
    for (const name of all) expect(name).toMatch(/^[A-Za-z_$][A-Za-z0-9_$]*$/);
  });

  it("makes every name unique over many near-collisions", () => {
    const source = ["a-b", "aB", "a-B", "a_b", "ab", "a--b", "class", "class$", "x-1", "x1", "2x"];
    const names = table(...source.map((name) => ["value", name] as [Namespace, string]));
    const produced = source.map((name) => names.get("value", name));
    expect(new Set(produced).size).toBe(source.length);
    for (const name of produced) expect(name).toMatch(/^[A-Za-z_$][A-Za-z0-9_$]*$/);
  });
});
