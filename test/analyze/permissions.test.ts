/**
 * `permissions:` values: every kind takes the mode words `allow`, `deny` and `prompt` (bare or
 * quoted) without a diagnostic, read, write, execute and network also a list of patterns; anything
 * else is W009 ("treated as deny"), which is what lowering then does (test/lower/permissions.test.ts).
 */
import { describe, expect, it } from "vitest";
import { checkSource } from "../../src/pipeline.js";

const kinds = ["read", "write", "execute", "bash", "network"] as const;
const modes = ["allow", "deny", "prompt", '"allow"', '"deny"', '"prompt"'];

function diagnosticsOf(rules: string): string[] {
  const source = `let folder = "docs/**"\nagent a:\n  permissions:\n${rules}\nsession: a\n  prompt: "hi"\n`;
  return checkSource(source).diagnostics.map((diagnostic) => `${diagnostic.code} ${diagnostic.message}`);
}

describe("permission values", () => {
  it.each(kinds.flatMap((kind) => modes.map((mode) => [kind, mode] as const)))(
    "%s: %s is accepted without a diagnostic",
    (kind, mode) => {
      expect(diagnosticsOf(`    ${kind}: ${mode}`)).toEqual([]);
    },
  );

  it.each(["read", "write", "execute", "network"])("%s: a list of strings and names is accepted", (kind) => {
    expect(diagnosticsOf(`    ${kind}: ["src/**", folder]`)).toEqual([]);
    expect(diagnosticsOf(`    ${kind}: []`)).toEqual([]);
  });

  it("env: naming the model's credentials is P059; other variables are accepted", () => {
    expect(diagnosticsOf('    env: ["GITHUB_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]')).toEqual([
      "P059 `env:` names `ANTHROPIC_API_KEY`, the model's credentials: prosec never gives them to a tool",
      "P059 `env:` names `ANTHROPIC_AUTH_TOKEN`, the model's credentials: prosec never gives them to a tool",
    ]);
    expect(diagnosticsOf('    env: ["GITHUB_TOKEN", "MY_ANTHROPIC_API_KEY"]')).toEqual([]);
  });

  it.each([
    ["read", '"src/**"'],
    ["write", "folder"],
    ["execute", "maybe"],
    ["bash", '["ls"]'],
    ["network", "42"],
    ["read", "folder + 1"],
  ])("%s: %s is W009 and said to be treated as deny", (kind, value) => {
    const found = checkSource(`let folder = "x"\nagent a:\n  permissions:\n    ${kind}: ${value}\n`).diagnostics;
    expect(found.map((diagnostic) => diagnostic.code)).toEqual(["W009"]);
    expect(found[0]!.hint).toMatch(/treated as `deny`/);
  });

  it("env: takes a list of variable names or deny; the other mode words are W009 with a hint of its own", () => {
    expect(diagnosticsOf('    env: ["GITHUB_TOKEN", folder]')).toEqual([]);
    expect(diagnosticsOf("    env: deny")).toEqual([]);
    expect(diagnosticsOf('    env: "deny"')).toEqual([]);
    for (const value of ["allow", "prompt", '"GITHUB_TOKEN"', "42"]) {
      const found = checkSource(`agent a:\n  permissions:\n    env: ${value}\n`).diagnostics;
      expect(found.map((diagnostic) => diagnostic.code)).toEqual(["W009"]);
      expect(found[0]!.hint).toMatch(/list of environment variable names .* treated as `deny`/);
    }
  });

  it("a whole set of modes on one agent, and on a session, checks clean", () => {
    const rules = kinds.map((kind, index) => `    ${kind}: ${["allow", "deny", "prompt"][index % 3]}`).join("\n");
    expect(diagnosticsOf(rules)).toEqual([]);
    const onSession = `agent a:\n  model: sonnet\nsession: a\n  prompt: "hi"\n  permissions:\n${rules}\n`;
    expect(checkSource(onSession).diagnostics).toEqual([]);
  });
});
