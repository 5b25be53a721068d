import { describe, expect, it } from "vitest";
import type { BindingStatement, ExpressionStatement, IfStatement, SessionExpression } from "../../src/ast.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { analyze } from "../../src/phases/2-analyze/index.js";

function analysed(source: string) {
  const { ast, diagnostics } = parse(source);
  expect(diagnostics).toEqual([]);
  return { ast, analysis: analyze(ast) };
}

describe("scopes and names", () => {
  it("resolves references to their declarations and tracks reassignment", () => {
    const { ast, analysis } = analysed('let a = "x"\nconst b = a\na = b\n');
    const [first, second, third] = ast.body as BindingStatement[];
    const a = analysis.references.get(first!.name)!;
    expect(analysis.references.get(second!.value as never)).toBe(a);
    expect(analysis.references.get(third!.name)).toBe(a);
    expect(a.reassigned).toBe(true);
    expect(analysis.references.get(second!.name)!.reassigned).toBe(false);
  });

  it("interpolates bound placeholders and leaves others as text", () => {
    const { ast, analysis } = analysed('let topic = "x"\nsession "On {topic} and {other}"\n');
    const session = (ast.body[1] as ExpressionStatement).expression as SessionExpression;
    const [, bound, , unbound] = session.prompt!.parts;
    expect(analysis.interpolations.has(bound as never)).toBe(true);
    expect(analysis.interpolations.has(unbound as never)).toBe(false);
  });

  it("lets exclusive branches bind the same name, visible after the `if`", () => {
    const { ast, analysis } = analysed(
      'if **x**:\n  let plan = "a"\nelse:\n  let plan = "b"\nsession "go"\n  context: plan\n',
    );
    const statement = ast.body[0] as IfStatement;
    const inThen = analysis.references.get((statement.clauses[0]!.body[0] as BindingStatement).name);
    const inElse = analysis.references.get((statement.alternate![0] as BindingStatement).name);
    expect(inThen).toBe(inElse);
    expect(inThen!.scope.kind).toBe("program");
    expect(analysis.diagnostics).toEqual([]);
  });

  it("gives loops, catch and pipeline stages their own scopes", () => {
    const { ast, analysis } = analysed(
      'let xs = ["a"]\nfor x, i in xs:\n  session "{x} {i}"\nlet ys = xs | reduce(acc, y):\n  session "{acc}{y}"\n',
    );
    expect(analysis.diagnostics).toEqual([]);
    expect(analysis.scopes.get((ast.body[1] as ExpressionStatement).expression)?.kind).toBe("loop");
  });

  it("separates parameters (inputs first) from inputs asked at run time, and lists outputs", () => {
    const { analysis } = analysed(
      'input topic: "t"\nagent a:\n  model: opus\nsession "x"\ninput later: "l"\noutput report = "r"\nif **y**:\n  output extra = "e"\n',
    );
    expect(analysis.parameters.map((input) => input.name.name)).toEqual(["topic"]);
    expect(analysis.runtimeInputs.map((input) => input.name.name)).toEqual(["later"]);
    expect(analysis.outputs).toEqual(["report", "extra"]);
  });

  it("hoists blocks: a block may be called before it is defined, and recursively", () => {
    const { analysis } = analysed("do f(3)\nblock f(n):\n  if n > 0:\n    do f(n - 1)\n");
    expect(analysis.diagnostics).toEqual([]);
    expect([...analysis.blocks.keys()]).toEqual(["f"]);
  });

  it("lets a caller reuse a name a block binds internally, and block bodies see program names", () => {
    const { analysis } = analysed('let topic = "x"\nblock b:\n  let result = session "{topic}"\nlet result = do b\n');
    expect(analysis.diagnostics).toEqual([]);
  });

  it("never mutates the AST", () => {
    const { ast } = parse("let a = 1\nif **x**:\n  let b = a\n");
    const before = JSON.stringify(ast);
    analyze(ast);
    expect(JSON.stringify(ast)).toBe(before);
  });
});
