/**
 * The sandbox, third round (issue 38): one attack per class, each with real bubblewrap, real links
 * and real tools (sh, coreutils, git, node), each failing without its fix.
 */
import { execFile, spawn } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Permissions } from "../../runtime/types.js";
import { editFileTool, runCommandTool, writeFileTool } from "../../runtime/tools/builtin.js";
import { PermissionGuard, type GuardSettings } from "../../runtime/tools/permissions.js";
import { prepareSandbox } from "../../runtime/tools/sandbox.js";
import { ensureBubblewrap, ensureSandboxTools } from "../support/bubblewrap.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst, temporaryFolder } from "../runtime/helpers.js";

let bwrap = "";
let model: FakeServer | undefined;
const stops: (() => void)[] = [];

beforeAll(() => {
  bwrap = ensureBubblewrap();
  ensureSandboxTools();
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await model?.close();
  model = undefined;
});

/** A project and, beside it, a folder outside it with a canary. */
function layout(): { root: string; project: string; outside: string } {
  const root = temporaryFolder("prosec-round3-");
  const project = join(root, "project");
  const outside = join(root, "outside");
  for (const folder of [outside, join(project, "src"), join(project, "docs"), join(project, ".prose/runs/other")])
    mkdirSync(folder, { recursive: true });
  writeFileSync(join(outside, "secret.txt"), "CANARY-OUTSIDE\n");
  writeFileSync(join(project, "src/a.ts"), "CANARY-SRC\n");
  writeFileSync(join(project, "notes.txt"), "CANARY-NOTES\n");
  writeFileSync(join(project, "README.md"), "CANARY-README\n");
  writeFileSync(join(project, ".env"), "DB_PASSWORD=CANARY-DOTENV\n");
  writeFileSync(join(project, ".prose/runs/other/bindings.md"), "CANARY-RUNS\n");
  return { root, project, outside };
}

function guardOf(project: string, permissions: Permissions, settings: GuardSettings = {}): PermissionGuard {
  return new PermissionGuard(project, permissions, undefined, undefined, settings);
}

/** What `run_command` answers: its output, or the tool error the model would see. */
async function command(project: string, permissions: Permissions, line: string, settings: GuardSettings = {}) {
  const guard = guardOf(project, permissions, settings);
  const context = { cwd: project, signal: new AbortController().signal, permissions: guard };
  return Promise.resolve(runCommandTool.run({ command: line }, context)).catch(
    (error: Error) => `TOOL ERROR ${error.message}`,
  );
}

describe("class 10: without bubblewrap, commands fail closed", () => {
  it("an execute list is not offered without bwrap by default, and the run says once how to install it", async () => {
    const { project } = layout();
    const readOnlyLooking: Permissions = { execute: ["cat *", "git grep *", "sed *"] };
    const guard = guardOf(project, readOnlyLooking, { bubblewrap: null });
    expect(guard.sandboxMode()).toBe("required");
    expect(guard.offersCommands()).toBe(false);
    await expect(guard.checkCommand("cat /etc/hostname")).rejects.toThrow(/only inside the OS sandbox/);
    expect(guard.sandboxNotice()).toMatch(/bubblewrap is not installed .*apt-get install bubblewrap/);
    // auto and off stay the user's explicit choices.
    expect(guardOf(project, readOnlyLooking, { bubblewrap: null, sandbox: "auto" }).offersCommands()).toBe(true);
    expect(guardOf(project, readOnlyLooking, { bubblewrap: null, sandbox: "off" }).offersCommands()).toBe(true);
  });

  it("with bwrap, the same list runs inside: sed's e command reaches nothing outside", async () => {
    const { project, outside } = layout();
    const out = await command(project, { execute: ["sed *"] }, `sed -n "1e cat ${outside}/secret.txt" notes.txt`);
    expect(out).not.toMatch(/CANARY-OUTSIDE/);
  });
});

describe("class 1: read: globs reach the sandbox", () => {
  it("an agent reading src/** sees nothing else of the working directory, by shell or by list", async () => {
    const { project } = layout();
    const shell = await command(project, { bash: "allow", read: ["src/**"] }, "cat src/a.ts; cat notes.txt; ls -A");
    expect(shell).toMatch(/CANARY-SRC/);
    expect(shell).not.toMatch(/CANARY-NOTES|README|\.env/);
    const listed = await command(project, { execute: ["cat *"], read: ["src/**"] }, "cat notes.txt");
    expect(listed).not.toMatch(/CANARY-NOTES/);
  });

  it("a literal file is a file bind, !folder/** a tmpfs, a folder writable but not readable unbound", async () => {
    const { project } = layout();
    mkdirSync(join(project, "secrets"));
    writeFileSync(join(project, "secrets/key"), "CANARY-KEY\n");
    mkdirSync(join(project, "out"));
    const files = await command(project, { bash: "allow", read: ["README.md", "src/**"] }, "cat README.md notes.txt");
    expect(files).toMatch(/CANARY-README/);
    expect(files).not.toMatch(/CANARY-NOTES/);
    const excluded = await command(
      project,
      { bash: "allow", read: ["**", "!secrets/**"] },
      "cat notes.txt; cat secrets/key",
    );
    expect(excluded).toMatch(/CANARY-NOTES/);
    expect(excluded).not.toMatch(/CANARY-KEY/);
    // Excludes ignore case, as read_file's do; a literal naming a folder does not bind its contents.
    expect(await command(project, { bash: "allow", read: ["**", "!SECRETS/**"] }, "cat secrets/key")).not.toMatch(
      /CANARY-KEY/,
    );
    expect(await command(project, { bash: "allow", read: ["secrets", "README.md"] }, "cat secrets/key")).not.toMatch(
      /CANARY-KEY/,
    );
    const blind = await command(
      project,
      { bash: "allow", read: ["src/**"], write: ["out/**"] },
      "echo x > out/new.txt; echo done",
    );
    expect(blind).toMatch(/done/);
    expect(existsSync(join(project, "out/new.txt"))).toBe(false);
  });

  it("a glob no bind can express refuses the command, naming the glob", async () => {
    const { project } = layout();
    expect(await command(project, { bash: "allow", read: ["**/*.md"] }, "cat notes.txt")).toMatch(
      /TOOL ERROR .*read: glob "\*\*\/\*\.md" cannot be carried into the OS sandbox/,
    );
  });
});

describe("class 3: binds never follow links", () => {
  it("a link a command made in a writable folder is not bound next time", async () => {
    const { project, root } = layout();
    const write: Permissions = { bash: "allow", write: ["docs/**", "docs/sub/**"] };
    expect(await command(project, write, "ln -s ../.. docs/sub; echo made")).toMatch(/made/);
    const out = await command(project, write, "cat docs/sub/outside/secret.txt; touch docs/sub/pwned; echo end");
    expect(out).toMatch(/end/);
    expect(out).not.toMatch(/CANARY-OUTSIDE/);
    expect(existsSync(join(root, "pwned"))).toBe(false);
  });

  it("links in the fixture (docs/up -> ../.., docs/srclink -> ../src) are neither readable nor writable binds", async () => {
    const { project, root } = layout();
    symlinkSync("../..", join(project, "docs/up"));
    symlinkSync("../src", join(project, "docs/srclink"));
    const up = await command(
      project,
      { bash: "allow", read: ["docs/up/**"], write: ["docs/up/**"] },
      "cat docs/up/outside/secret.txt; touch docs/up/pwned; echo end",
    );
    expect(up).not.toMatch(/CANARY-OUTSIDE/);
    expect(existsSync(join(root, "pwned"))).toBe(false);
    await command(project, { bash: "allow", write: ["docs/srclink/**"] }, "echo PWNED > docs/srclink/a.ts");
    expect(readFileSync(join(project, "src/a.ts"), "utf8")).toBe("CANARY-SRC\n");
  });

  it("a folder swapped for a link between the check and the mount refuses the command inside the sandbox", async () => {
    const { project } = layout();
    const sandbox = prepareSandbox({ cwd: project, read: undefined, write: ["docs/**"] });
    if ("refusal" in sandbox) throw new Error(sandbox.refusal);
    // docs/ judged writable, then swapped for a link to src/, which is not: bwrap follows it.
    renameSync(join(project, "docs"), join(project, "docs.real"));
    symlinkSync("src", join(project, "docs"));
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(bwrap, [...sandbox.args, "/bin/sh", "-c", "echo PWNED > docs/a.ts"], (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : (error.code as number), output: stdout + stderr }),
      );
    });
    expect(result.output).toMatch(/docs changed after it was checked; the command was refused/);
    expect(result.code).toBe(126);
    expect(readFileSync(join(project, "src/a.ts"), "utf8")).toBe("CANARY-SRC\n");
  });
});

describe("class 2: hiding does not stop at a count", () => {
  it("20,001 entries before .env and .prose do not uncover them", async () => {
    const { project } = layout();
    const shell: Permissions = { bash: "allow" };
    expect(await command(project, shell, "mkdir .aaa && cd .aaa && seq 20001 | xargs touch && echo made")).toMatch(
      /made/,
    );
    const out = await command(project, shell, "cat .env; cat .prose/runs/other/bindings.md; echo end");
    expect(out).toMatch(/end/);
    expect(out).not.toMatch(/CANARY/);
  });

  it("a walk that is cut refuses the command", () => {
    const { project } = layout();
    for (let index = 0; index < 20; index++) writeFileSync(join(project, `.aaa${index}`), "");
    const sandbox = prepareSandbox({ cwd: project, read: undefined, write: undefined, maxWalked: 10 });
    expect(sandbox).toEqual({ refusal: expect.stringMatching(/more than 10 entries .* the command was refused/) });
  });
});

describe("class 4: protected names hold inside node_modules", () => {
  it("node_modules/x/.env is hidden and node_modules/x/.git/config read-only", async () => {
    const { project } = layout();
    mkdirSync(join(project, "node_modules/x/.git"), { recursive: true });
    writeFileSync(join(project, "node_modules/x/.env"), "CANARY-NM-DOTENV\n");
    writeFileSync(join(project, "node_modules/x/.git/config"), "[core]\n");
    const out = await command(
      project,
      { bash: "allow" },
      "cat node_modules/x/.env; echo '[core] fsmonitor = evil' >> node_modules/x/.git/config; echo end",
    );
    expect(out).toMatch(/end/);
    expect(out).not.toMatch(/CANARY-NM-DOTENV/);
    expect(readFileSync(join(project, "node_modules/x/.git/config"), "utf8")).toBe("[core]\n");
  });
});

describe("class 7: hard links", () => {
  it("write_file and edit_file refuse a file with another hard link; the file outside stays", async () => {
    const { project, outside } = layout();
    linkSync(join(outside, "secret.txt"), join(project, "docs/linked.txt"));
    const guard = guardOf(project, {});
    const context = { cwd: project, signal: new AbortController().signal, permissions: guard };
    await expect(writeFileTool.run({ path: "docs/linked.txt", content: "PWNED" }, context)).rejects.toThrow(
      /2 hard links/,
    );
    await expect(
      editFileTool.run({ path: "docs/linked.txt", old_text: "CANARY", new_text: "PWNED" }, context),
    ).rejects.toThrow(/2 hard links/);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("CANARY-OUTSIDE\n");
  });
});

describe("class 6: a race with another session swapping a folder for a link", () => {
  it("write_file leaves nothing outside while a real shell swaps docs/d and a link to outside", async () => {
    const { project, outside } = layout();
    mkdirSync(join(project, "docs/d"));
    const swapper = spawn(
      "/bin/sh",
      ["-c", "while :; do mv docs/d docs/d.real; ln -s ../../outside docs/d; rm docs/d; mv docs/d.real docs/d; done"],
      { cwd: project, stdio: "ignore" },
    );
    stops.push(() => swapper.kill("SIGKILL"));
    const guard = guardOf(project, {});
    const context = { cwd: project, signal: new AbortController().signal, permissions: guard };
    for (let index = 0; index < 400; index++) {
      const path = index % 2 === 0 ? `docs/d/f${index}.txt` : `docs/d/new${index}/f.txt`;
      await Promise.resolve(writeFileTool.run({ path, content: "x" }, context)).catch(() => undefined);
    }
    swapper.kill("SIGKILL");
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });
});

describe("class 8: protected names a command creates are removed", () => {
  it("a nested repository's hook, git init, a program, prose.lock, prose_modules: removed, and said", async () => {
    const { project } = layout();
    const shell: Permissions = { bash: "allow" };
    const out = await command(
      project,
      shell,
      "mkdir -p sub/.git/hooks && printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > sub/.git/hooks/post-checkout && git init -q repo && echo x > next.prose && touch prose.lock && mkdir prose_modules && echo ran",
    );
    expect(out).toMatch(/^TOOL ERROR exit code 0\nran\n/);
    for (const made of ["sub/.git", "repo/.git", "next.prose", "prose.lock", "prose_modules"]) {
      expect(out).toContain(`removed ${made}`);
      expect(existsSync(join(project, made))).toBe(false);
    }
    expect(existsSync(join(project, "sub"))).toBe(true);
  });

  it(".mcp.json and skills folders (issue 44): an existing one is read-only, a new one removed, and said", async () => {
    const { project } = layout();
    writeFileSync(join(project, ".mcp.json"), '{"mcpServers":{}}\n');
    const out = await command(
      project,
      { bash: "allow" },
      `echo '{"mcpServers":{"evil":{"command":"sh"}}}' > .mcp.json; mkdir -p skills/evil .claude/skills/evil sub/.mcp.json && echo ran`,
    );
    expect(out).toMatch(/\.mcp\.json: Read-only file system/);
    expect(readFileSync(join(project, ".mcp.json"), "utf8")).toBe('{"mcpServers":{}}\n');
    for (const made of ["skills", ".claude/skills", "sub/.mcp.json"]) {
      expect(out).toContain(`removed ${made}`);
      expect(existsSync(join(project, made))).toBe(false);
    }
    expect(existsSync(join(project, ".claude"))).toBe(true);
  });

  it("a protected folder moved aside is moved back or reported, never deleted", async () => {
    const { project } = layout();
    mkdirSync(join(project, "nested/.git"), { recursive: true });
    writeFileSync(join(project, "nested/.git/config"), "[core]\n");
    mkdirSync(join(project, "kept/.git"), { recursive: true });
    const out = await command(project, { bash: "allow" }, "mv nested nested2; mkdir aside; mv kept/.git aside/.git");
    // Moving a folder that holds a nested repository carries it along: it is moved back.
    expect(out).toMatch(/moved nested2\/\.git back to nested\/\.git/);
    expect(readFileSync(join(project, "nested/.git/config"), "utf8")).toBe("[core]\n");
    expect(existsSync(join(project, "nested2/.git"))).toBe(false);
    // The repository folder itself is a read-only mount point inside: it cannot be moved.
    expect(out).toMatch(/cannot move 'kept\/\.git' to 'aside\/\.git': Device or resource busy/);
    expect(existsSync(join(project, "kept/.git"))).toBe(true);
  });
});

describe("classes 8 and 5 as the person running the program sees them", () => {
  it("removed files and proxy refusals are tool errors for the model and sandbox lines on the run's tool events", async () => {
    const { project } = layout();
    model = await startFakeAnthropic({
      script: [
        reply.toolUse([
          { name: "run_command", input: { command: "git init -q repo; echo ran" } },
          { name: "run_command", input: { command: "curl -sS http://127.0.0.1:9/x" } },
        ]),
        reply.text("done"),
      ],
    });
    const { events } = await runAgainst(
      model,
      (rt) => rt.session({ at: at(1), prompt: "Go", permissions: { bash: "allow", network: "allow" } }),
      { cwd: project },
    );
    const tools = events.filter((event) => event.type === "tool");
    expect(tools.map((event) => ("sandbox" in event ? event.sandbox : undefined))).toEqual([
      [expect.stringMatching(/^removed repo\/\.git: a command may not create \.git$/)],
      [expect.stringMatching(/^the network proxy refused http:\/\/127\.0\.0\.1:9\/x: .*loopback/)],
    ]);
    const results = JSON.stringify(model.requests[1]?.body?.messages.at(-1));
    expect(results).toMatch(/"is_error":true[^}]*removed repo\/\.git/);
    expect(existsSync(join(project, "repo/.git"))).toBe(false);
  });
});

describe("class 11: processes that outlive a command", () => {
  it("without bwrap, a background process does not keep the command alive and is killed", async () => {
    const { project } = layout();
    const out = await command(project, { bash: "allow" }, "sleep 600 & echo $! > pid.txt; echo started", {
      sandbox: "off",
    });
    expect(out).toMatch(/started/);
    const pid = Number(readFileSync(join(project, "pid.txt"), "utf8"));
    await expect.poll(() => alive(pid)).toBe(false);
  }, 20_000);

  it("cancelling a command stops its whole process group", async () => {
    const { project } = layout();
    const guard = guardOf(project, { bash: "allow" }, { sandbox: "off" });
    const controller = new AbortController();
    const running = runCommandTool.run(
      { command: "sleep 600 & echo $! > pid.txt; wait" },
      { cwd: project, signal: controller.signal, permissions: guard },
    );
    await expect
      .poll(() => existsSync(join(project, "pid.txt")) && readFileSync(join(project, "pid.txt"), "utf8"))
      .toMatch(/\d+\n/);
    const pid = Number(readFileSync(join(project, "pid.txt"), "utf8"));
    controller.abort();
    expect(await running).toMatch(/stopped: the run was cancelled/);
    await expect.poll(() => alive(pid)).toBe(false);
  }, 20_000);

  it("inside bwrap, a setsid daemon dies with the command (the PID namespace)", async () => {
    const { project } = layout();
    const marker = String(600_000 + Math.floor(Math.random() * 100_000));
    expect(await command(project, { bash: "allow" }, `setsid sleep ${marker} & echo started`)).toMatch(/started/);
    expect(sleepers(marker)).toEqual([]);
  }, 20_000);
});

describe("class 11: limits inside the sandbox", () => {
  it("a file past 1 GiB stops at the limit with a clear error; /tmp is a 1 GiB tmpfs", async () => {
    const { project } = layout();
    mkdirSync(join(project, "out"));
    const out = await command(
      project,
      { bash: "allow", write: ["out/**"] },
      "dd if=/dev/zero of=out/big bs=1M count=1 seek=1100 2>/dev/null; echo rc=$?; df -k /tmp | tail -1",
    );
    // 153: killed by SIGXFSZ (128 + 25), the file-size limit.
    expect(out).toMatch(/rc=153/);
    expect(statSync(join(project, "out/big")).size).toBe(0);
    expect(out).toMatch(/\s1048576\s/);
  });
});

describe("class 5: no network to the host", () => {
  it("network: allow reaches neither the host's loopback nor its abstract unix sockets", async () => {
    const { project } = layout();
    const name = `prosec-test-${process.pid}-${Date.now()}`;
    let reached = 0;
    const abstract: Server = createServer((socket) => (reached++, socket.end("reached")));
    await new Promise<void>((resolve) => abstract.listen(`\0${name}`, resolve));
    stops.push(() => abstract.close());
    const tcp: Server = createServer((socket) => (reached++, socket.end("reached")));
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    stops.push(() => tcp.close());
    const port = (tcp.address() as { port: number }).port;
    const connect = (target: string) =>
      `node -e "require('net').connect(${target}).on('data', (d) => console.log(String(d))).on('error', (e) => console.log('refused', e.code))"`;
    const out = await command(
      project,
      { bash: "allow", network: "allow" },
      `${connect(`'\\\\0${name}'`)}; ${connect(`${port}, '127.0.0.1'`)}`,
    );
    expect(out).toMatch(/refused[\s\S]*refused/);
    expect(out).not.toMatch(/reached/);
    expect(reached).toBe(0);
  });
});

describe("class 5: commands reach the network only through prosec's proxy, under fetch_url's rules", () => {
  async function sink(): Promise<{ port: number; hits: string[] }> {
    const hits: string[] = [];
    const server = createHttpServer(
      (request, response) => (hits.push(request.url ?? ""), response.end("SINK-REACHED\n")),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    stops.push(() => server.close());
    return { port: (server.address() as { port: number }).port, hits };
  }
  const resolveHost = async (host: string) => (host.endsWith(".test") ? ["127.0.0.1"] : []);

  it("network: allow goes through the proxy, which refuses the host's loopback as fetch_url does", async () => {
    const { project } = layout();
    const { port, hits } = await sink();
    const out = await command(project, { bash: "allow", network: "allow" }, `curl -sS http://127.0.0.1:${port}/x`, {
      resolveHost,
    });
    expect(out).toMatch(/TOOL ERROR [\s\S]*the network proxy refused http:\/\/127\.0\.0\.1:\d+\/x: .*loopback/);
    expect(hits).toEqual([]);
  });

  it("a host a pattern names is reached; another is refused; https to a path-limited pattern is refused", async () => {
    const { project } = layout();
    const { port, hits } = await sink();
    const permissions: Permissions = {
      bash: "allow",
      network: ["http://sink.test/*", "https://api.github.test/repos/*"],
    };
    const reached = await command(project, permissions, `curl -sS http://sink.test:${port}/ok`, { resolveHost });
    expect(reached).toMatch(/^exit code 0\nSINK-REACHED/);
    expect(hits).toEqual(["/ok"]);
    const other = await command(project, permissions, `curl -sS http://other.test:${port}/no`, { resolveHost });
    expect(other).toMatch(/the network proxy refused http:\/\/other\.test:\d+\/no: The URL matches none/);
    const tunnel = await command(project, permissions, "curl -sS https://api.github.test/repos/x", { resolveHost });
    expect(tunnel).toMatch(
      /the network proxy refused CONNECT api\.github\.test:443: https shows the proxy only the host/,
    );
    expect(hits).toEqual(["/ok"]);
  });

  it("a CONNECT tunnel opens where every path on the host is allowed", async () => {
    const { project } = layout();
    const { port, hits } = await sink();
    const out = await command(
      project,
      { bash: "allow", network: ["tunnel.test"] },
      `curl -sS -p http://tunnel.test:${port}/t`,
      {
        resolveHost,
      },
    );
    expect(out).toMatch(/^exit code 0\nSINK-REACHED/);
    expect(hits).toEqual(["/t"]);
  });
});

describe("class 12: bubblewrap is probed only for an agent that may run commands", () => {
  it("a session that runs no command gets no probe; one that may gets it before its first request", async () => {
    const { project } = layout();
    model = await startFakeAnthropic({ script: [reply.text("a"), reply.text("b")] });
    await runAgainst(model, (rt) => rt.session({ at: at(1), prompt: "one", permissions: { bash: "deny" } }), {
      cwd: project,
    });
    const { events } = await runAgainst(
      model,
      (rt) => rt.session({ at: at(1), prompt: "two", permissions: { bash: "allow" } }),
      { cwd: project },
    );
    expect(events.filter((event) => event.type === "notice")).toEqual([]);
    const tools = model.requests[1]?.body?.tools?.map((tool: { name: string }) => tool.name) ?? [];
    expect(tools).toContain("run_command");
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

/** Processes on the host running `sleep <marker>`. */
function sleepers(marker: string): string[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\0${marker}\0`;
      } catch {
        return false;
      }
    });
}
