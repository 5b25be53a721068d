/**
 * What a person approving a tool call is shown is what runs: a hostile model cannot make a call look
 * like another with escape sequences, a carriage return, a line break, bidirectional overrides, or a
 * path that leads elsewhere (`a/../b`, a link).
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PermissionGuard } from "../../runtime/tools/permissions.js";
import { shownToAPerson } from "../../runtime/tools/shown-to-a-person.js";
import type { PermissionRequest } from "../../runtime/types.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst, temporaryFolder } from "../runtime/helpers.js";

let server: FakeServer | undefined;
afterEach(async () => server?.close());

/** No character that changes how the text around it looks. */
const DECEPTIVE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

describe("what a person approving a call is shown", () => {
  it("a write whose path hides itself with escape sequences shows the file it writes", async () => {
    const cwd = temporaryFolder();
    mkdirSync(join(cwd, "src"));
    writeFileSync(join(cwd, "src", "app.ts"), "export const ok = true;\n");
    // On a terminal this reads "README.md": the rest is concealed (ESC [8m) or printed over (CR).
    const hidden = "README.md\u001b[8m/../src/app.ts\r";
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "write_file", input: { path: hidden.slice(0, -1), content: "pwned" } }]),
        reply.text("done"),
      ],
    });
    const asked: PermissionRequest[] = [];
    await runAgainst(
      server,
      (rt) => rt.session({ at: at(1), prompt: "update the readme", permissions: { ask: ["write"] } }),
      {
        cwd,
        onPermission: (request) => {
          asked.push(request);
          return true;
        },
      },
    );
    expect(asked.map((request) => request.detail)).toEqual(["src/app.ts"]);
    expect(readFileSync(join(cwd, "src", "app.ts"), "utf8")).toBe("pwned");
  });

  it("a path through a link shows where it leads, and what the model wrote, escaped", async () => {
    const cwd = temporaryFolder();
    mkdirSync(join(cwd, "keys"));
    writeFileSync(join(cwd, "keys", "deploy.pem"), "secret");
    symlinkSync("keys/deploy.pem", join(cwd, "notes.md"));
    const asked: string[] = [];
    const guard = new PermissionGuard(cwd, { ask: ["read"] }, (request) => {
      asked.push(request.detail);
      return true;
    });
    await guard.confirmRead("notes.md", "read_file");
    await guard.confirmRead("./keys/../keys/deploy.pem", "read_file");
    await guard.confirmRead("notes\u202e\u001b[2Kdm.txt", "read_file");
    expect(asked[0]).toBe('keys/deploy.pem (written as "notes.md")');
    expect(asked[1]).toBe("keys/deploy.pem");
    expect(asked[2]).toBe("notes\\u202e\\u001b[2Kdm.txt");
    for (const detail of asked) expect(detail).not.toMatch(DECEPTIVE);
  });

  it("escapes every deceptive character of a command or an MCP call put to a person", async () => {
    const asked: string[] = [];
    const guard = new PermissionGuard(
      temporaryFolder(),
      { bash: "prompt", network: "prompt", mcp: [], mcpPrompt: ["*"] },
      (request) => {
        asked.push(request.detail);
        return false;
      },
      "deployer",
      { sandbox: "off" },
    );
    // A C1 CSI (U+009B) clears the screen on terminals that take 8-bit controls; U+202E reverses what follows.
    await expect(guard.checkCommand("echo \u009b2J\u202eflesti-mr")).rejects.toThrow(/not granted/);
    await expect(
      guard.checkMcpCall("github", "create_issue", "mcp__github__create_issue", '{"title":"ok\u2028\u001b[2K"}'),
    ).rejects.toThrow(/not granted/);
    expect(asked).toHaveLength(2);
    for (const detail of asked) expect(detail).not.toMatch(DECEPTIVE);
    expect(asked[0]).toContain("\\u009b2J\\u202eflesti-mr");
    expect(asked[1]).toBe('{"title":"ok\\u2028\\u001b[2K"}');
  });

  it("shownToAPerson leaves plain text, tabs aside, as it is", () => {
    expect(shownToAPerson('make release --tag "v1.2" ünïcödé 日本')).toBe('make release --tag "v1.2" ünïcödé 日本');
    expect(shownToAPerson("a\tb\r\nc\u200bd")).toBe("a\\u0009b\\u000d\\u000ac\\u200bd");
  });
});
