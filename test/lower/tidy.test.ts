import { describe, expect, it } from "vitest";
import { tidy } from "../../src/phases/3-transform/tidy.js";

const head =
  'import { defineProgram, startRun, type RunOptions, type Value, type AgentDefinition } from "prosec/runtime";\n';

describe("tidying a generated module", () => {
  it("drops a `= null` no path reads: every branch assigns before the read", async () => {
    const code = `${head}export async function f(c: boolean, g: () => Promise<Value>): Promise<Value> {\n  let x: Value = null;\n  if (c) {\n    x = await g();\n  } else {\n    x = 1;\n  }\n  return x;\n}\n`;
    expect(await tidy(code)).toContain("let x: Value;\n");
  });

  it("keeps it when a path may read it: one branch assigns, or a closure reads", async () => {
    const oneBranch = `${head}export function f(c: boolean): Value {\n  let x: Value = null;\n  if (c) x = 1;\n  return x;\n}\n`;
    expect(await tidy(oneBranch)).toContain("let x: Value = null;");
    const closure = `${head}export function f(): () => Value {\n  let x: Value = null;\n  const read = () => x;\n  x = 1;\n  return read;\n}\n`;
    expect(await tidy(closure)).toContain("let x: Value = null;");
    const loop = `${head}export function f(xs: number[]): Value {\n  let x: Value = null;\n  for (const y of xs) x = y;\n  return x;\n}\n`;
    expect(await tidy(loop)).toContain("let x: Value = null;");
  });

  it("keeps only the call of a binding nothing reads, and drops an agent nothing uses with its type import", async () => {
    const code = `${head}const unusedAgent: AgentDefinition = { name: "a", prompt: "p" };\nexport async function f(g: () => Promise<Value>): Promise<void> {\n  const unread = await g();\n  let later: Value = null;\n  later = await g();\n}\n`;
    const tidied = await tidy(code);
    expect(tidied).not.toContain("unusedAgent");
    expect(tidied).not.toContain("type AgentDefinition");
    expect(tidied).toContain("type Value");
    expect(tidied).toContain("  await g();\n  \n  await g();");
  });

  it("keeps a binding something reads", async () => {
    const code = `${head}export async function f(g: () => Promise<Value>): Promise<Value> {\n  const read = await g();\n  return read;\n}\n`;
    expect(await tidy(code)).toContain("const read = await g();\n  return read;");
  });

  it("writes a loop whose item nothing reads as a count, and drops the index or item an entries() loop does not read", async () => {
    const code = [
      head + "declare function g(x?: unknown): Promise<void>;",
      "export async function f(list: () => Promise<number[]>, $remaining: number): Promise<void> {",
      "  for (const x of await list()) {\n    await g();\n  }",
      "  for (const [i, y] of (await list()).entries()) {\n    await g(i);\n  }",
      "  for (const [i, y] of (await list()).entries()) {\n    await g(y);\n  }",
      "  for (const [i, y] of (await list()).entries()) {\n    await g($remaining);\n  }",
      "  for (const z of await list()) {\n    await g({ z });\n  }",
      "}",
    ].join("\n");
    const tidied = await tidy(code);
    expect(tidied).toContain(
      "for (let $remaining2 = (await list()).length; $remaining2 > 0; $remaining2--) {\n    await g();",
    );
    expect(tidied).toContain("for (const [i] of (await list()).entries()) {\n    await g(i);");
    expect(tidied).toContain("for (const y of await list()) {\n    await g(y);");
    expect(tidied).toContain(
      "for (let $remaining3 = (await list()).length; $remaining3 > 0; $remaining3--) {\n    await g($remaining);",
    );
    expect(tidied).toContain("for (const z of await list()) {\n    await g({ z });");
  });

  it("drops a callback's trailing parameters nothing reads, and only a callback's", async () => {
    const code = [
      head + "declare function each(f: (item: number, index: number) => Promise<void>): Promise<void>;",
      "export async function f(): Promise<void> {",
      "  await each(async (item, index) => {});",
      "  await each(async (item, index) => { await each(async () => { void item; }); });",
      "  await each(async (item, index) => { void index; });",
      "}",
      "export function named(unused: number): void {}",
    ].join("\n");
    const tidied = await tidy(code);
    expect(tidied).toContain("await each(async () => {});");
    expect(tidied).toContain("await each(async (item) => { await each(async () => { void item; }); });");
    expect(tidied).toContain("await each(async (item, index) => { void index; });");
    expect(tidied).toContain("export function named(unused: number): void {}");
  });
});
