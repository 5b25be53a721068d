import { describe, expect, it } from "vitest";
import type { Identifier } from "../../src/ast.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { analyze, visibleSymbols, type ImportedProgram } from "../../src/phases/2-analyze/index.js";

function analysed(source: string, imported?: ImportedProgram) {
  const { ast, diagnostics } = parse(source);
  expect(diagnostics).toEqual([]);
  return analyze(ast, { resolveImport: () => imported });
}

/** Each name of a table as `name@line:column → what it means`, in source order. */
function table<T>(entries: ReadonlyMap<Identifier, T>, describe: (value: T) => string): string[] {
  return [...entries]
    .sort(([a], [b]) => a.loc.start.offset - b.loc.start.offset)
    .map(
      ([identifier, value]) =>
        `${identifier.name}@${identifier.loc.start.line}:${identifier.loc.start.column} → ${describe(value)}`,
    );
}

describe("what names that are not bindings refer to", () => {
  it("agents: the definition, `session:`, `resume:` and an agent used as a value", () => {
    const analysis = analysed(
      "agent captain:\n  persist: true\nsession: captain\n  context: captain\nresume: captain\nsession: sailor\n",
    );
    expect(table(analysis.agentReferences, (agent) => `agent at line ${agent.loc.start.line}`)).toEqual([
      "captain@1:7 → agent at line 1",
      "captain@3:10 → agent at line 1",
      "captain@4:12 → agent at line 1",
      "captain@5:9 → agent at line 1",
    ]);
  });

  it("blocks: the definition and every `do`, before or after it", () => {
    const analysis = analysed('do greet("a")\nblock greet(name):\n  session "Hi {name}"\ndo greet("b")\ndo missing\n');
    expect(table(analysis.blockReferences, (block) => `block at line ${block.loc.start.line}`)).toEqual([
      "greet@1:4 → block at line 2",
      "greet@2:7 → block at line 2",
      "greet@4:4 → block at line 2",
    ]);
  });

  it("a used program: its alias, its calls, the inputs they pass and the outputs read from the result", () => {
    const analysis = analysed('use "./lib" as lib\nlet r = lib(subject: "x")\nsession "s"\n  context: r.report\n', {
      inputs: ["subject"],
      outputs: ["report"],
    });
    expect(
      table(analysis.programReferences, (reference) => `${reference.part} of ${reference.use.source.value}`),
    ).toEqual([
      "lib@1:16 → program of ./lib",
      "lib@2:9 → program of ./lib",
      "subject@2:13 → input of ./lib",
      "report@4:14 → output of ./lib",
    ]);
  });
});

describe("the names visible at a point", () => {
  const source =
    'input topic: "t"\nlet early = "e"\nblock b(p):\n  let inner = "i"\n  session "{p}"\nlet late = "l"\nfor item in [1]:\n  session "{item}"\n';
  const analysis = analysed(source);
  const at = (needle: string) => {
    const offset = source.indexOf(needle);
    const scope = [...analysis.scopeOf]
      .filter(([node]) => node.loc.start.offset <= offset && offset < node.loc.end.offset)
      .at(-1)![1];
    return visibleSymbols(scope, offset).map((symbol) => `${symbol.name}:${symbol.kind}`);
  };

  it("are those declared before it, innermost first, as lookups resolve them", () => {
    expect(at("let late")).toEqual(["topic:input", "early:let"]);
    expect(at("{item}")).toEqual(["item:loop-item", "topic:input", "early:let", "late:let"]);
  });

  it("inside a block: its own names before the point, and every program name (a block runs when called)", () => {
    expect(at("{p}")).toEqual(["p:param", "inner:let", "topic:input", "early:let", "late:let"]);
  });
});
