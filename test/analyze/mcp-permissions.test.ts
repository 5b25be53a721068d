/**
 * `permissions: mcp:` at check time: quoted `server/tool` globs (P056), each naming a server the
 * `.mcp.json` nearest the program declares (P055 with did-you-mean, or the missing file), a file that
 * cannot be read (P057); `prosec check`, build, run and the LSP read the names without starting a server.
 * Lowering writes the globs as they are.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkProgram, lowerSource } from "../../src/compile.js";
import { declaredMcpServers } from "../../src/project/mcp-servers.js";
import type { DeclaredMcpServers } from "../../src/phases/2-analyze/index.js";
import { temporaryFolder } from "../support/temp.js";

const declared: DeclaredMcpServers = { file: ".mcp.json", names: ["github", "memory"] };

function program(globs: string): string {
  return `agent a:\n  permissions:\n    mcp: ${globs}\nsession: a\n  prompt: "hi"\n`;
}

function diagnosticsOf(globs: string, servers: DeclaredMcpServers = declared): string[] {
  return checkProgram(program(globs), { mcpServers: servers }).diagnostics.map((d) => `${d.code} ${d.message}`);
}

describe("permissions: mcp:", () => {
  it("accepts globs over declared servers (and server globs), and deny", () => {
    expect(diagnosticsOf('["github/get_*", "memory/*", "memory", "*/read_*"]')).toEqual([]);
    expect(diagnosticsOf("deny")).toEqual([]);
    expect(diagnosticsOf("[]")).toEqual([]);
  });

  it("an undeclared server is an error, with did-you-mean when one is close", () => {
    expect(diagnosticsOf('["githb/get_*"]')).toEqual([
      "P055 MCP server `githb` is not declared in .mcp.json (did you mean `github`?)",
    ]);
    const far = checkProgram(program('["slack/post"]'), { mcpServers: declared }).diagnostics[0]!;
    expect(far.code).toBe("P055");
    expect(far.hint).toBe(".mcp.json declares `github`, `memory`");
    expect(far.range.start).toMatchObject({ line: 3, column: 11 });
  });

  it("without a .mcp.json above the program, every named server is an error saying so", () => {
    expect(diagnosticsOf('["memory/*"]', { file: undefined, names: [] })).toEqual([
      "P055 MCP server `memory` is not declared: there is no .mcp.json in the program's folder or above it",
    ]);
  });

  it("an entry that is not quoted text is P056; allow is not a word of mcp: (W009)", () => {
    expect(diagnosticsOf("[memory]").map((line) => line.slice(0, 4))).toContain("P056");
    expect(diagnosticsOf('["memory/{x}"]').map((line) => line.slice(0, 4))).toContain("P056");
    expect(diagnosticsOf("allow").map((line) => line.slice(0, 4))).toEqual(["W009"]);
  });

  it("prompt: entries are globs too (a person approves each call); mcp: prompt is every tool", () => {
    expect(diagnosticsOf('["github/get_*", prompt: "github/create_*", prompt: "memory/*"]')).toEqual([]);
    expect(diagnosticsOf("prompt")).toEqual([]);
    expect(diagnosticsOf('["github/get_*", prompt: "githb/create_*"]')).toEqual([
      "P055 MCP server `githb` is not declared in .mcp.json (did you mean `github`?)",
    ]);
    const unquoted = checkProgram(program('["memory/*", prompt: memory]'), { mcpServers: declared }).diagnostics;
    expect(unquoted.map((d) => [d.code, d.range.start.column])).toEqual([["P056", 31]]);
    expect(diagnosticsOf('[{ other: "memory/*" }]').map((line) => line.slice(0, 4))).toEqual(["P056"]);
  });

  it("prompt: is a list element only (not a call argument), and only as prompt", () => {
    expect(checkProgram(program('["memory/*", ask: "memory/x"]')).diagnostics[0]?.code).toBe("E004");
  });

  it("lowers prompt: entries to mcpPrompt, and mcp: prompt to every server's tools", () => {
    const lowered = (globs: string): string =>
      lowerSource(program(globs), "p.prose", { mcpServers: declared }).code ?? "";
    expect(lowered('["github/get_*", prompt: "github/create_*"]')).toContain(
      'permissions: { mcp: ["github/get_*"], mcpPrompt: ["github/create_*"] }',
    );
    expect(lowered('[prompt: "memory/*"]')).toContain('permissions: { mcpPrompt: ["memory/*"] }');
    expect(lowered("prompt")).toContain('permissions: { mcpPrompt: ["*"] }');
  });

  it("a broken .mcp.json is reported once (P057)", () => {
    const broken = { file: ".mcp.json", names: [], problem: ".mcp.json: not valid JSON" };
    expect(diagnosticsOf('["a/*", "b/*"]', broken)).toEqual([
      "P057 the MCP servers cannot be checked: .mcp.json: not valid JSON",
    ]);
  });

  it("an in-memory check (no .mcp.json looked for) checks only the form", () => {
    expect(checkProgram(program('["anything/*"]')).diagnostics).toEqual([]);
  });

  it("lowers to the globs as written", () => {
    const { code } = lowerSource(program('["github/get_*", "memory/*"]'), "p.prose", { mcpServers: declared });
    expect(code).toContain('mcp: ["github/get_*", "memory/*"]');
    expect(lowerSource(program("deny"), "p.prose").code).not.toMatch(/mcp: \[/);
  });

  it("reads the names from the .mcp.json nearest the program", () => {
    const root = temporaryFolder("prosec-mcp-check-");
    mkdirSync(join(root, "a", "b"), { recursive: true });
    writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { outer: { command: "x" } } }));
    writeFileSync(
      join(root, "a", ".mcp.json"),
      JSON.stringify({ mcpServers: { inner: { command: "x" }, web: { type: "http", url: "http://h/mcp" } } }),
    );
    expect(declaredMcpServers(join(root, "a", "b", "p.prose"), root)).toEqual({
      file: "a/.mcp.json",
      names: ["inner", "web"],
    });
    expect(declaredMcpServers(join(root, "p.prose"), root)).toEqual({ file: ".mcp.json", names: ["outer"] });
    writeFileSync(join(root, ".mcp.json"), '{"mcpServers": {"s": {"type": "sse", "url": "u"}}}');
    expect(declaredMcpServers(join(root, "p.prose"), root).problem).toContain('type "sse" is not supported');
  });
});

describe("skills: against the installed skills", () => {
  const check = (skills: string, installed: readonly string[] | undefined) =>
    checkProgram(
      `session "hi"\n  skills: ${skills}\n`,
      installed === undefined ? {} : { installedSkills: installed },
    ).diagnostics.map((d) => `${d.code} ${d.message}`);

  it("an installed skill needs no import; a missing one stays W007; one edit from an installed one is P058", () => {
    expect(check('["code-review"]', ["code-review"])).toEqual([]);
    expect(check('["web-search"]', ["code-review"])).toEqual(["W007 skill `web-search` is not imported"]);
    expect(check('["code-reveiw"]', ["code-review"])).toEqual([
      "P058 skill `code-reveiw` is not installed (did you mean `code-review`?)",
    ]);
    expect(check('["code-reveiw"]', undefined)).toEqual(["W007 skill `code-reveiw` is not imported"]);
  });
});
