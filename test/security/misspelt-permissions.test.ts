/**
 * Permissions fail closed when misspelt: a near miss of a known property (`permisions:`) is error
 * P035, so the agent never runs with the default, wider permissions; its body is not read as
 * expressions (no `deny is not defined`). A property far from every known one stays a note (W005).
 */
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";

const program = (property: string) =>
  `agent worker:\n  model: sonnet\n  ${property}:\n    bash: deny\n    write: ["out/**"]\n\nsession: worker\n  prompt: "Tidy the docs"\n`;

describe("a misspelt permissions block", () => {
  it.each(["permisions", "permissons", "Permissions", "permission", "premissions"])(
    "`%s:` is P035 and no module is emitted",
    async (misspelt) => {
      const result = await compile(program(misspelt), "agent.prose");
      const codes = result.diagnostics.map((diagnostic) => diagnostic.code);
      expect(codes).toEqual(["P035"]);
      expect(result.diagnostics[0]!.severity).toBe("error");
      expect(result.diagnostics[0]!.message).toContain("did you mean `permissions`?");
      expect(result.code).toBeUndefined();
    },
  );

  it("spelt right, the program compiles with the agent's permissions", async () => {
    const result = await compile(program("permissions"), "agent.prose");
    expect(result.diagnostics).toEqual([]);
    expect(result.code).toContain('bash: "deny"');
  });

  it("a property far from every known one is a note (W005), its value still read", async () => {
    const result = await compile(program("audience"), "agent.prose");
    expect(result.diagnostics.map((diagnostic) => `${diagnostic.code} ${diagnostic.severity}`)).toEqual([
      "W005 warning",
      "P001 error",
    ]);
  });
});
