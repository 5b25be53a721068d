import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";

function runtimeImport(source: string): string {
  const { code, diagnostics } = lowerSource(source, "imports.prose");
  expect(diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  return code!.split("\n").find((line) => line.endsWith('from "prosec/runtime";'))!;
}

describe("the runtime import names what the code calls", () => {
  it("imports only the module's fixed needs for a program that computes nothing", () => {
    expect(runtimeImport('session "hello"\n')).toBe(
      'import { defineProgram, startRun, type RunOptions } from "prosec/runtime";',
    );
  });

  it("imports the helpers the lowered code calls, in a fixed order", () => {
    const source = 'let n = 2\nlet m = n * 3 - 1\nif m == 5 and n < 3:\n  session "{m}"\n';
    expect(runtimeImport(source)).toBe(
      'import { defineProgram, startRun, text, subtract, multiply, equals, compare, type RunOptions, type Value } from "prosec/runtime";',
    );
  });

  it("is not fooled by prompt text that looks like a call", () => {
    const source = 'agent coder:\n  prompt: "write add(a, b) and compare(x, y), then text(it)"\nsession: coder\n';
    expect(runtimeImport(source)).toBe(
      'import { defineProgram, startRun, type AgentDefinition, type RunOptions } from "prosec/runtime";',
    );
  });

  it("imports the Value and Runtime types only when the code names them (a block function takes the call's handle)", () => {
    expect(runtimeImport('block review(topic):\n  session "Review {topic}"\ndo review("x")\n')).toBe(
      'import { defineProgram, startRun, text, type RunOptions, type Runtime, type Value } from "prosec/runtime";',
    );
  });
});
