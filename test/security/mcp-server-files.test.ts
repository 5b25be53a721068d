/**
 * The files `.mcp.json`'s stdio servers run from the project (tools/mcp/server-places.ts): prosec
 * starts such a server as the user, outside any sandbox, so an agent that rewrote one would have its
 * own code run with the user's reach, by the next run that uses the server (or this one, at a
 * restart). A prompt-injected agent with the default `write:` and `bash: allow` tries, through the
 * file tools and through commands (in the OS sandbox): the server's folder, a script in the top
 * folder, a package under `node_modules/` and the folder of a script not built yet all stay as they
 * were; the agent's own notes are written.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../runtime/index.js";
import { mcpServerPlaces } from "../../runtime/tools/mcp/server-places.js";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { reply, startFakeAnthropic, turnOf, type FakeRequest, type FakeServer } from "../support/fake-anthropic.js";
import { writeMcpJson } from "../support/mcp-servers.js";
import { at, runAgainst, temporaryFolder } from "../runtime/helpers.js";

beforeAll(() => void ensureBubblewrap());

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const SCRIPTS = ["tools/server.mjs", "top-server.mjs", "node_modules/@acme/mcp/dist/index.js"];

/** A project whose `.mcp.json` runs three scripts of its own, and one server from elsewhere (npx). */
function project(): string {
  const cwd = temporaryFolder("prosec-mcp-files-");
  mkdirSync(join(cwd, "tools"));
  mkdirSync(join(cwd, "node_modules/@acme/mcp/dist"), { recursive: true });
  mkdirSync(join(cwd, "vendor"));
  for (const script of SCRIPTS) writeFileSync(join(cwd, script), `// the real ${script}\n`);
  writeFileSync(join(cwd, "vendor/srv.py"), "# served through a link\n");
  symlinkSync("vendor", join(cwd, "linked"));
  writeMcpJson(cwd, {
    tools: { command: process.execPath, args: ["tools/server.mjs"] },
    top: { command: "node", args: ["./top-server.mjs"] },
    acme: { command: process.execPath, args: ["--no-warnings", "node_modules/@acme/mcp/dist/index.js"] },
    linked: { command: "python3", args: ["linked/srv.py"] },
    // Not built yet: its folder is protected as written, so no agent builds it for the next run.
    built: { command: "node", args: ["dist/server.js"] },
    remote: { command: "npx", args: ["-y", "@acme/other-mcp", "${HOME}", "--root", "tools"] },
  });
  return cwd;
}

/** Every tool result the model was sent, as text, in order. */
function results(server: FakeServer): string[] {
  return server.requests
    .at(-1)!
    .body!.messages.flatMap((message) => (typeof message.content === "string" ? [] : message.content))
    .filter((block) => (block as { type: string }).type === "tool_result")
    .map((block) => String((block as { content: unknown }).content));
}

describe("the files an MCP server runs from the project", () => {
  it("are the server's folder, a top-folder script itself, and the package under node_modules", () => {
    expect(mcpServerPlaces(project())).toEqual([
      "tools",
      "top-server.mjs",
      "node_modules/@acme/mcp",
      "vendor",
      "linked",
      "dist",
    ]);
  });

  it("cannot be written by an agent, through the file tools or a command", async () => {
    const cwd = project();
    const calls = [
      ...SCRIPTS.map((path) => ({ name: "write_file", input: { path, content: "evil()\n" } })),
      { name: "write_file", input: { path: "node_modules/@acme/mcp/dist/extra.js", content: "evil()\n" } },
      { name: "write_file", input: { path: "dist/server.js", content: "evil()\n" } },
      { name: "write_file", input: { path: "notes.md", content: "mine\n" } },
      {
        name: "run_command",
        input: { command: SCRIPTS.map((path) => `echo 'evil()' >> ${path}; `).join("") + "mv top-server.mjs x.mjs" },
      },
      { name: "run_command", input: { command: "mv tools moved && mkdir tools && echo 'evil()' > tools/server.mjs" } },
      { name: "run_command", input: { command: "mkdir dist && echo 'evil()' > dist/server.js" } },
    ];
    const server = await startFakeAnthropic({
      respond: (request: FakeRequest) => {
        const call = calls[turnOf(request)];
        return call === undefined ? reply.text("done") : reply.toolUse([call]);
      },
    });
    servers.push(server);
    const { result } = await runAgainst(
      server,
      (rt: Runtime) =>
        rt.session({
          at: at(1),
          binding: "x",
          prompt: "Go",
          agent: { name: "intruder", permissions: { bash: "allow" } },
        }),
      { cwd },
    );
    expect(result).toBe("done");
    for (const script of SCRIPTS) expect(readFileSync(join(cwd, script), "utf8")).toBe(`// the real ${script}\n`);
    const [tools, top, acme, extra, built, notes, command, moved, build] = results(server) as string[] & {
      length: 9;
    };
    for (const refused of [tools, top, acme, extra, built])
      expect(refused).toMatch(/^Writing .* is not permitted for this agent\.$/);
    expect(existsSync(join(cwd, "dist"))).toBe(false);
    expect(notes).not.toMatch(/not permitted/);
    expect(readFileSync(join(cwd, "notes.md"), "utf8")).toBe("mine\n");
    expect(command).toMatch(/Read-only file system|Device or resource busy/);
    expect(moved).toMatch(/Device or resource busy|moved back/);
    expect(build).toMatch(/changed protected files, which was undone/);
    expect(existsSync(join(cwd, "dist", "server.js"))).toBe(false);
  });
});
