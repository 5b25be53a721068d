/**
 * `permissions:` lowering, and the guard against lowering a property value that analysis let
 * through without resolving it ("internal: `deny` at 3:12 was not resolved by analysis").
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { compile, lowerSource } from "../../src/compile.js";
import { hasErrors } from "../../src/diagnostics/diagnostic.js";
import { checkSource } from "../../src/pipeline.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { temporaryFolder } from "../support/temp.js";

const program = (rules: string) => `agent a:\n  permissions:\n${rules}\nsession: a\n  prompt: "hi"\n`;

/** The `permissions` object literal of agent `a`, as lowered (before formatting). */
function loweredPermissions(rules: string): string {
  const { code, diagnostics } = lowerSource(program(rules), "p.prose");
  expect(diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  return /permissions: (\{[^}]*\})/.exec(code!)![1]!;
}

describe("permissions lower to the runtime's Permissions", () => {
  it.each([
    ["write: deny", "{ write: [] }"],
    ["read: deny", "{ read: [] }"],
    ["execute: deny", "{ execute: [] }"],
    ["bash: deny", '{ bash: "deny" }'],
    ["network: deny", '{ network: "deny" }'],
    ["read: allow", "{}"],
    ["write: allow", "{}"],
    ["execute: allow", "{}"],
    ["bash: allow", '{ bash: "allow" }'],
    ['network: "allow"', '{ network: "allow" }'],
    ["read: prompt", '{ ask: ["read"] }'],
    ["write: prompt", '{ ask: ["write"] }'],
    ["execute: prompt", '{ ask: ["execute"] }'],
    ['read: "deny"', "{ read: [] }"],
    ['write: ["out/**"]', '{ write: ["out/**"] }'],
    ['env: ["GITHUB_TOKEN", "NPM_TOKEN"]', '{ env: ["GITHUB_TOKEN", "NPM_TOKEN"] }'],
    ["env: deny", "{ env: [] }"],
    ["env: allow", "{ env: [] }"],
  ])("%s → %s", (rule, expected) => {
    expect(loweredPermissions(`    ${rule}`)).toBe(expected);
  });

  it("values analysis reports as W009 (treated as deny) lower as deny", () => {
    const rules = ['read: "src/**"', "write: nowhere", "execute: 42", 'bash: ["ls"]', "network: maybe"]
      .map((rule) => `    ${rule}`)
      .join("\n");
    expect(checkSource(program(rules)).diagnostics.map((diagnostic) => diagnostic.code)).toEqual([
      "W009",
      "W009",
      "W009",
      "W009",
      "W009",
    ]);
    expect(loweredPermissions(rules)).toBe('{ read: [], write: [], execute: [], bash: "deny", network: "deny" }');
  });

  it("unknown permission kinds (W008) grant nothing and are left out", () => {
    expect(loweredPermissions("    raed: allow\n    write: deny")).toBe("{ write: [] }");
  });

  it("several prompts share one ask list", () => {
    expect(loweredPermissions("    read: prompt\n    write: deny\n    execute: prompt")).toBe(
      '{ write: [], ask: ["read", "execute"] }',
    );
  });
});

describe("no property value that passes analysis reaches an internal error in lowering", () => {
  const values = [
    "allow",
    "deny",
    "prompt",
    '"allow"',
    '"deny"',
    '"prompt"',
    '"src/**"',
    '"{bound}"',
    '"{unbound}"',
    '"""raw {bound}"""',
    "bound",
    "unbound",
    "bound.field",
    "bound[0]",
    "(bound)",
    "not bound",
    "bound + 1",
    "**judged**",
    "42",
    "-1",
    "1.5",
    "true",
    "false",
    "null",
    "sonnet",
    '"sonnet"',
    "exponential",
    "project",
    "user",
    "[]",
    '["a"]',
    "[bound]",
    "[unbound]",
    '["{bound}", bound]',
    "[1, 2]",
    "[[bound]]",
    "[{ k: bound }]",
    "{ k: 1 }",
    "{ bound }",
    "{ unbound }",
  ];
  const blockValue = "\n      nested: bound\n      other: unbound";
  const properties = ["model", "prompt", "context", "retry", "backoff", "persist", "skills", "permissions", "flavor"];
  const permissionKinds = ["read", "write", "execute", "bash", "network", "env", "raed"];
  const heads = {
    agent: (body: string) =>
      `let bound = "v"\nimport "skill" from "x"\nagent a:\n${body}\nsession: a\n  prompt: "hi"\n`,
    session: (body: string) =>
      `let bound = "v"\nimport "skill" from "x"\nagent a:\n  model: sonnet\nsession: a\n  prompt: "hi"\n${body}\n`,
  };

  it("on agents and sessions, for every property and permission kind", () => {
    const crashes: string[] = [];
    let lowered = 0;
    for (const head of Object.values(heads)) {
      const sources = [
        ...properties.flatMap((property) =>
          [...values, blockValue.replaceAll("\n      ", "\n    ")].map((value) => head(`  ${property}: ${value}`)),
        ),
        ...permissionKinds.flatMap((kind) =>
          [...values, blockValue].map((value) => head(`  permissions:\n    ${kind}: ${value}`)),
        ),
      ];
      for (const source of sources) {
        if (hasErrors(checkSource(source).diagnostics)) continue;
        try {
          if (lowerSource(source, "fuzz.prose").code === undefined) crashes.push(`no code: ${source}`);
          lowered++;
        } catch (error) {
          crashes.push(`${(error as Error).message}\n${source}`);
        }
      }
    }
    expect(crashes).toEqual([]);
    expect(lowered).toBeGreaterThan(400);
  });
});

describe("a compiled program's permissions are enforced by the runtime", () => {
  const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));
  const folder = temporaryFolder("prosec-permissions-");
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  async function load(
    name: string,
    rules: string,
  ): Promise<{ run(inputs: object, options: object): Promise<unknown> }> {
    const compiled = await compile(program(rules), `${name}.prose`);
    expect(compiled.diagnostics).toEqual([]);
    const path = join(folder, `${name}.prose.ts`);
    writeFileSync(path, compiled.code!.replace('from "prosec/runtime"', `from ${JSON.stringify(runtimeEntry)}`));
    return import(path);
  }

  it("write: deny offers no write tools and refuses a write the model asks for anyway", async () => {
    const cwd = realpathSync(mkdtempSync(join(folder, "cwd-")));
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "write_file", input: { path: "planted.txt", content: "x" } }]),
        reply.text("done"),
      ],
    });
    const module = await load("write-deny", "    write: deny");
    await module.run({}, { apiKey: "sk-ant-test", baseURL: server.url, maxRetries: 0, cwd, onPermission: () => true });
    const offered = server.requests[0]!.body!.tools!.map((tool) => tool.name);
    expect(offered).toContain("read_file");
    expect(offered).not.toContain("write_file");
    expect(offered).not.toContain("edit_file");
    expect(existsSync(join(cwd, "planted.txt"))).toBe(false);
    expect(JSON.stringify(server.requests[1]!.body!.messages.at(-1))).toContain("not available");
  });

  it("write: prompt asks onPermission for each path, and writes only what it agrees to", async () => {
    const cwd = realpathSync(mkdtempSync(join(folder, "cwd-")));
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([
          { name: "write_file", input: { path: "yes.txt", content: "ok" } },
          { name: "write_file", input: { path: "no.txt", content: "x" } },
        ]),
        reply.text("done"),
      ],
    });
    const module = await load("write-prompt", "    write: prompt");
    const asked: string[] = [];
    await module.run(
      {},
      {
        apiKey: "sk-ant-test",
        baseURL: server.url,
        maxRetries: 0,
        cwd,
        onPermission: (request: { tool: string; detail: string }) => (
          asked.push(`${request.tool} ${request.detail}`),
          request.detail === "yes.txt"
        ),
      },
    );
    expect(asked).toEqual(["write_file yes.txt", "write_file no.txt"]);
    expect(readFileSync(join(cwd, "yes.txt"), "utf8")).toBe("ok");
    expect(existsSync(join(cwd, "no.txt"))).toBe(false);
  });
});
