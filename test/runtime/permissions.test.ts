import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PermissionGuard } from "../../runtime/tools/permissions.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst, temporaryFolder } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

function toolResults(server: FakeServer, requestIndex: number): string {
  return JSON.stringify(server.requests[requestIndex]!.body!.messages.at(-1));
}

describe("permissions in a session", () => {
  it("bash: deny does not offer run_command and refuses it when the model asks anyway", async () => {
    const cwd = temporaryFolder();
    server = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "run_command", input: { command: "touch pwned" } }]), reply.text("gave up")],
    });
    const { events } = await runAgainst(
      server,
      (rt) => rt.session({ at: at(1), prompt: "try", permissions: { bash: "deny" } }),
      { cwd, onPermission: () => true },
    );
    expect(server.requests[0]!.body!.tools!.map((tool) => tool.name)).not.toContain("run_command");
    expect(existsSync(join(cwd, "pwned"))).toBe(false);
    expect(toolResults(server, 1)).toContain("not available");
    expect(events).toContainEqual(expect.objectContaining({ type: "tool", tool: "run_command", allowed: false }));
  });

  it("run_command needs onPermission by default, and runs when it agrees (without a shell)", async () => {
    const cwd = temporaryFolder();
    server = await startFakeAnthropic({
      script: [
        reply.text("no tools"),
        reply.toolUse([{ name: "run_command", input: { command: "touch 'made.txt'" } }]),
        reply.text("ran"),
      ],
    });
    const asked: string[] = [];
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "a" }), { cwd });
    expect(server.requests[0]!.body!.tools!.map((tool) => tool.name)).not.toContain("run_command");
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "b" }), {
      cwd,
      onPermission: (request) => (asked.push(request.detail), true),
    });
    expect(asked).toEqual(["touch made.txt"]);
    expect(existsSync(join(cwd, "made.txt"))).toBe(true);
    expect(toolResults(server, 2)).toContain("exit code 0");
  });

  it("refuses a command the person declines, and one outside the execute list", async () => {
    const cwd = temporaryFolder();
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "run_command", input: { command: "touch declined" } }]),
        reply.text("ok"),
        reply.toolUse([
          { name: "run_command", input: { command: "rm -rf x" } },
          { name: "run_command", input: { command: "touch y" } },
        ]),
        reply.text("ok"),
      ],
    });
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "a" }), { cwd, onPermission: () => false });
    expect(existsSync(join(cwd, "declined"))).toBe(false);
    expect(toolResults(server, 1)).toContain("was not granted");
    await runAgainst(
      server,
      (rt) => rt.session({ at: at(1), prompt: "b", permissions: { bash: "allow", execute: ["touch *"] } }),
      { cwd },
    );
    expect(toolResults(server, 3)).toContain("not in this agent's execute list");
    expect(existsSync(join(cwd, "y"))).toBe(true);
  });

  it("RunOptions.toolEnv reaches every tool process; its values never reach the model or the events", async () => {
    const cwd = temporaryFolder();
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([
          {
            name: "run_command",
            input: {
              command: "printenv DEPLOY_TARGET > target.txt; printenv DEPLOY_TARGET; echo key=$ANTHROPIC_API_KEY",
            },
          },
        ]),
        reply.text("ok"),
      ],
    });
    const { events } = await runAgainst(
      server,
      (rt) => rt.session({ at: at(1), prompt: "a", permissions: { bash: "allow" } }),
      { cwd, toolEnv: { DEPLOY_TARGET: "staging-cluster-01" } },
    );
    expect(readFileSync(join(cwd, "target.txt"), "utf8")).toBe("staging-cluster-01\n");
    const results = toolResults(server, 1);
    expect(results).toContain("[redacted]\\nkey=\\n");
    expect(results).not.toContain("staging-cluster-01");
    expect(JSON.stringify(events)).not.toContain("staging-cluster-01");
  });

  it("refuses writes outside the write globs and reads outside the read globs", async () => {
    const cwd = temporaryFolder();
    mkdirSync(join(cwd, "secret"));
    writeFileSync(join(cwd, "secret", "key.txt"), "top secret");
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([
          { name: "write_file", input: { path: "src/evil.ts", content: "x" } },
          { name: "read_file", input: { path: "secret/key.txt" } },
          { name: "write_file", input: { path: "out/ok.md", content: "fine" } },
        ]),
        reply.text("ok"),
      ],
    });
    await runAgainst(
      server,
      (rt) => rt.session({ at: at(1), prompt: "a", permissions: { read: ["docs/**", "out/**"], write: ["out/**"] } }),
      { cwd },
    );
    expect(existsSync(join(cwd, "src", "evil.ts"))).toBe(false);
    expect(readFileSync(join(cwd, "out", "ok.md"), "utf8")).toBe("fine");
    const results = toolResults(server, 1);
    expect(results).not.toContain("top secret");
    expect(results).toContain("Writing src/evil.ts is not permitted");
    expect(results).toContain("Reading secret/key.txt is not permitted");
  });

  it("refuses .. and symlink escapes even with permissive globs", async () => {
    const outside = temporaryFolder("prosec-outside-");
    writeFileSync(join(outside, "passwd"), "root:x:0:0");
    const cwd = temporaryFolder();
    symlinkSync(outside, join(cwd, "link"));
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([
          { name: "read_file", input: { path: "../" + outside.split("/").pop() + "/passwd" } },
          { name: "read_file", input: { path: "link/passwd" } },
          { name: "write_file", input: { path: "link/planted", content: "x" } },
          { name: "read_file", input: { path: join(outside, "passwd") } },
        ]),
        reply.text("ok"),
      ],
    });
    await runAgainst(
      server,
      (rt) => rt.session({ at: at(1), prompt: "escape", permissions: { read: ["**"], write: ["**"] } }),
      { cwd },
    );
    const results = toolResults(server, 1);
    expect(results).not.toContain("root:x");
    expect(results.match(/outside the working directory/g)).toHaveLength(4);
    expect(existsSync(join(outside, "planted"))).toBe(false);
  });
});

describe("PermissionGuard defaults", () => {
  it("reads and writes inside the cwd, never .git or .prose for writes, no network, commands only when asked", async () => {
    const cwd = temporaryFolder();
    const guard = new PermissionGuard(cwd, undefined, undefined);
    expect(guard.readablePath("a/b.txt")).toBe(join(cwd, "a/b.txt"));
    expect(guard.writablePath("a/b.txt")).toBe(join(cwd, "a/b.txt"));
    expect(() => guard.writablePath(".git/config")).toThrow(/not permitted/);
    expect(() => guard.writablePath(".prose/runs/x/state.md")).toThrow(/not permitted/);
    expect(guard.offersCommands()).toBe(false);
    expect(guard.offersNetwork()).toBe(false);
    await expect(guard.checkCommand("ls")).rejects.toThrow(/not granted/);
    await expect(guard.checkUrl("https://example.com")).rejects.toThrow(/denied/);
  });

  it("matches network patterns against the URL or its host", async () => {
    const guard = new PermissionGuard(
      temporaryFolder(),
      { network: ["https://api.github.com/*", "*.example.org"] },
      undefined,
    );
    expect(guard.offersNetwork()).toBe(true);
    await expect(guard.checkUrl("https://api.github.com/repos")).resolves.toEqual(
      new URL("https://api.github.com/repos"),
    );
    await expect(guard.checkUrl("http://docs.example.org/x")).resolves.toEqual(new URL("http://docs.example.org/x"));
    await expect(guard.checkUrl("https://evil.com/")).rejects.toThrow(/none of this agent's network patterns/);
    await expect(guard.checkUrl("file:///etc/passwd")).rejects.toThrow(/Only http and https/);
  });
});

describe("deny as empty lists, prompt as ask (read / write / execute)", () => {
  it("read: [] and write: [] refuse every path in code, and the tools are not offered", async () => {
    const cwd = temporaryFolder();
    writeFileSync(join(cwd, "notes.txt"), "private notes");
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([
          { name: "read_file", input: { path: "notes.txt" } },
          { name: "write_file", input: { path: "planted.txt", content: "x" } },
        ]),
        reply.text("ok"),
      ],
    });
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "a", permissions: { read: [], write: [] } }), {
      cwd,
      onPermission: () => true,
    });
    const offered = server.requests[0]!.body!.tools?.map((tool) => tool.name) ?? [];
    expect(offered).not.toContain("read_file");
    expect(offered).not.toContain("list_files");
    expect(offered).not.toContain("write_file");
    expect(offered).not.toContain("edit_file");
    expect(existsSync(join(cwd, "planted.txt"))).toBe(false);
    expect(toolResults(server, 1)).not.toContain("private notes");

    const guard = new PermissionGuard(cwd, { read: [], write: [] }, () => true);
    expect(guard.offersReads()).toBe(false);
    expect(guard.offersWrites()).toBe(false);
    expect(() => guard.readablePath("notes.txt")).toThrow(/Reading notes.txt is not permitted/);
    expect(() => guard.writablePath("planted.txt")).toThrow(/Writing planted.txt is not permitted/);
    await expect(guard.confirmWrite("planted.txt", "write_file")).rejects.toThrow(/not permitted/);
  });

  it("execute: [] refuses every command, even with bash: allow and a yes from onPermission", async () => {
    const guard = new PermissionGuard(temporaryFolder(), { bash: "allow", execute: [] }, () => true);
    expect(guard.offersCommands()).toBe(false);
    await expect(guard.checkCommand("ls")).rejects.toThrow(/execute: deny/);
  });

  it("ask: read and write go to onPermission per path, after the globs and the working directory", async () => {
    const cwd = temporaryFolder();
    const asked: string[] = [];
    const guard = new PermissionGuard(
      cwd,
      { read: ["**"], write: ["**", "!.git/**", "!.prose/**"], ask: ["read", "write"] },
      (request) => (asked.push(`${request.tool} ${request.detail}`), request.detail !== "no.txt"),
    );
    expect(guard.offersReads()).toBe(true);
    expect(guard.offersWrites()).toBe(true);
    await expect(guard.confirmRead("a.txt", "read_file")).resolves.toBe(join(cwd, "a.txt"));
    await expect(guard.confirmWrite("no.txt", "write_file")).rejects.toThrow(/was not granted/);
    await expect(guard.confirmWrite(".git/config", "write_file")).rejects.toThrow(/not permitted/);
    await expect(guard.confirmRead("../elsewhere", "read_file")).rejects.toThrow(/outside the working directory/);
    expect(asked).toEqual(["read_file a.txt", "write_file no.txt"]);

    const unattended = new PermissionGuard(cwd, { read: ["**"], ask: ["read"] }, undefined);
    expect(unattended.offersReads()).toBe(false);
    await expect(unattended.confirmRead("a.txt", "read_file")).rejects.toThrow(/was not granted/);
    expect(unattended.readablePath("a.txt")).toBe(join(cwd, "a.txt"));
  });

  it("ask: execute puts every command to onPermission, even with bash: allow; bash: deny still wins", async () => {
    const asked: string[] = [];
    const guard = new PermissionGuard(
      temporaryFolder(),
      { bash: "allow", ask: ["execute"] },
      (request) => (asked.push(request.detail), request.detail === "ls"),
    );
    expect(guard.offersCommands()).toBe(true);
    await expect(guard.checkCommand("ls")).resolves.toMatchObject({ argv: ["ls"] });
    await expect(guard.checkCommand("rm -rf x")).rejects.toThrow(/was not granted/);
    expect(asked).toEqual(["ls", "rm -rf x"]);
    expect(new PermissionGuard(temporaryFolder(), { ask: ["execute"] }, undefined).offersCommands()).toBe(false);
    expect(
      new PermissionGuard(temporaryFolder(), { bash: "deny", ask: ["execute"] }, () => true).offersCommands(),
    ).toBe(false);
  });
});
