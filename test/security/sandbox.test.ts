/**
 * The OS sandbox behind the checks: real bwrap, real commands, a real git. What a command inside can
 * see, write and reach; the git escape of the permission suite with git's safe settings switched off
 * (the internal switch), contained; and the `--sandbox` modes.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Permissions } from "../../runtime/types.js";
import { runCommandTool } from "../../runtime/tools/builtin.js";
import { unsafeForTests } from "../../runtime/tools/environment.js";
import { PermissionGuard, type GuardSettings } from "../../runtime/tools/permissions.js";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst, temporaryFolder } from "../runtime/helpers.js";

const folders: string[] = [];
let sink: Server;
let sinkHits = 0;
let sinkUrl = "";
let model: FakeServer | undefined;

beforeAll(async () => {
  ensureBubblewrap();
  sink = createServer((_request, response) => (sinkHits++, response.end("reached")));
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => sink.close(resolve));
});
afterEach(async () => {
  unsafeForTests.withoutGitSettings = false;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  await model?.close();
  model = undefined;
});

function layout(): { project: string; outside: string } {
  const root = temporaryFolder("prosec-sandbox-");
  folders.push(root);
  const project = join(root, "project");
  const outside = join(root, "outside");
  for (const folder of [outside, join(project, "out"), join(project, ".git"), join(project, ".prose/runs/x")])
    mkdirSync(folder, { recursive: true });
  writeFileSync(join(outside, "secret.txt"), "CANARY-OUTSIDE\n");
  writeFileSync(join(project, "program.prose"), 'session "work"\n');
  writeFileSync(join(project, ".env"), "DB_PASSWORD=CANARY-DOTENV\n");
  writeFileSync(join(project, ".prose/runs/x/state.md"), "CANARY-PROSE\n");
  writeFileSync(join(project, "notes.md"), "notes\n");
  return { project, outside };
}

async function run(project: string, permissions: Permissions, command: string, settings: GuardSettings = {}) {
  const guard = new PermissionGuard(project, permissions, undefined, undefined, settings);
  const context = { cwd: project, signal: new AbortController().signal, permissions: guard };
  return runCommandTool.run({ command }, context);
}

describe("a command inside the OS sandbox", () => {
  it("sees no home, no other process, no .env or .prose, no capabilities", async () => {
    const { project, outside } = layout();
    const shell: Permissions = { bash: "allow" };
    expect(await run(project, shell, "echo $HOME; ls -A /root 2>&1; ls -A ~ | wc -l")).toMatch(
      /^exit code \d+\n\/tmp\/home\n.*No such file or directory\n0\n$/s,
    );
    const processes = await run(project, shell, "ls /proc | grep -E '^[0-9]+$'");
    expect(processes.split("\n")).not.toContain(String(process.pid));
    expect(await run(project, shell, `cat /proc/${process.pid}/environ`)).toMatch(/No such file/);
    const hidden = await run(project, shell, "cat .env; ls -A .prose; echo end");
    expect(hidden).toMatch(/end\n$/);
    expect(hidden).not.toMatch(/CANARY|runs/);
    expect(await run(project, shell, "grep CapEff /proc/self/status")).toMatch(/CapEff:\s+0000000000000000/);
    expect(await run(project, shell, `cat ${outside}/secret.txt`)).toMatch(/No such file/);
  });

  it("writes only where the whole folder is writable; protected files stay read-only", async () => {
    const { project, outside } = layout();
    const out = await run(
      project,
      { bash: "allow", write: ["out/**"] },
      `echo ok > out/fine.txt; echo x > notes.md; echo x > new.txt; touch ${outside}/pwned; echo done`,
    );
    // stdout and stderr are two pipes: their lines interleave in any order.
    expect(out.match(/Read-only file system/g)).toHaveLength(2);
    expect(out).toMatch(/^done$/m);
    expect(readFileSync(join(project, "out/fine.txt"), "utf8")).toBe("ok\n");
    expect(readFileSync(join(project, "notes.md"), "utf8")).toBe("notes\n");
    expect(existsSync(join(project, "new.txt"))).toBe(false);
    expect(existsSync(join(outside, "pwned"))).toBe(false);

    const anywhere = await run(
      project,
      { bash: "allow" },
      "echo x > new.txt; echo x > program.prose; echo x > .git/config; echo x > .env; echo done",
    );
    expect(anywhere).toMatch(/done/);
    expect(readFileSync(join(project, "new.txt"), "utf8")).toBe("x\n");
    expect(readFileSync(join(project, "program.prose"), "utf8")).toBe('session "work"\n');
    expect(existsSync(join(project, ".git/config"))).toBe(false);
    expect(readFileSync(join(project, ".env"), "utf8")).toBe("DB_PASSWORD=CANARY-DOTENV\n");

    // A glob a bind mount cannot express leaves the folders read-only (fail closed).
    const globbed = await run(project, { bash: "allow", write: ["**/*.md"] }, "echo x > notes.md; echo done");
    expect(globbed).toMatch(/Read-only file system/);
    expect(readFileSync(join(project, "notes.md"), "utf8")).toBe("notes\n");
  });

  // Changed by issue 38 (class 5): `network: allow` gave commands the host's network, loopback
  // included; commands now have a network namespace of their own whatever network: says.
  it("reaches no network, not even the host's loopback under network: allow", async () => {
    const { project } = layout();
    const fetchSink = `node -e "fetch('${sinkUrl}').then(() => console.log('reached'), (e) => console.log('no network', e.cause?.code))"`;
    expect(await run(project, { bash: "allow", network: ["127.0.0.1"] }, fetchSink)).toMatch(/no network/);
    expect(await run(project, { bash: "allow", network: "allow" }, fetchSink)).toMatch(/no network/);
    expect(sinkHits).toBe(0);
  });
});

describe("the git escape with git's safe settings switched off", () => {
  it("runs the model's core.fsmonitor, but inside the sandbox: nothing outside, no runtime process, no key", async () => {
    const { project, outside } = layout();
    unsafeForTests.withoutGitSettings = true;
    const hook = `touch ${outside}/pwned-fsmonitor; ls /proc > procs.txt; cat /proc/${process.pid}/environ > environ.txt; echo`;
    const config = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "${hook}"\n`;
    rmSync(join(project, ".git"), { recursive: true });
    model = await startFakeAnthropic({
      script: [
        reply.toolUse([
          { name: "write_file", input: { path: "HEAD", content: "ref: refs/heads/main\n" } },
          { name: "write_file", input: { path: "objects/info/keep", content: "" } },
          { name: "write_file", input: { path: "refs/heads/keep", content: "" } },
          { name: "write_file", input: { path: "config", content: config } },
          { name: "run_command", input: { command: "git status" } },
        ]),
        reply.text("done"),
      ],
    });
    const { result } = await runAgainst(
      model,
      (rt) =>
        rt.session({ at: at(1), prompt: "Check the status", permissions: { execute: ["git status", "git diff"] } }),
      { cwd: project },
    );
    expect(result).toBe("done");
    // The hook ran (the escape is live without git's settings) ...
    expect(existsSync(join(project, "procs.txt"))).toBe(true);
    // ... and stayed inside.
    expect(existsSync(join(outside, "pwned-fsmonitor"))).toBe(false);
    expect(readFileSync(join(project, "procs.txt"), "utf8").split("\n")).not.toContain(String(process.pid));
    expect(readFileSync(join(project, "environ.txt"), "utf8")).toBe("");
  });
});

describe("--sandbox modes", () => {
  const shell: Permissions = { bash: "allow" };
  const listed: Permissions = { execute: ["git status"] };

  // Changed by issue 38 (class 10): `required` was the default of an unrestricted shell only, and an
  // execute list ran as the user without bwrap; it is now the default of every agent.
  it("required (the default, shell or execute list): without bwrap run_command is not offered, and the run says why", async () => {
    const { project } = layout();
    for (const permissions of [shell, listed]) {
      const guard = new PermissionGuard(project, permissions, undefined, "coder", { bubblewrap: null });
      expect(guard.sandboxMode()).toBe("required");
      expect(guard.offersCommands()).toBe(false);
      expect(guard.sandboxNotice()).toMatch(
        /Agent coder may run commands, .*apt-get install bubblewrap.*--sandbox auto/,
      );
      await expect(guard.checkCommand(permissions === shell ? "ls" : "git status")).rejects.toThrow(
        /only inside the OS sandbox/,
      );
    }
  });

  it("auto (explicit): without bwrap commands run, and the run says so once", async () => {
    const { project } = layout();
    const guard = new PermissionGuard(project, listed, undefined, undefined, { sandbox: "auto", bubblewrap: null });
    expect(guard.sandboxMode()).toBe("auto");
    expect(guard.offersCommands()).toBe(true);
    expect(guard.sandboxNotice()).toMatch(/without the OS sandbox/);
    expect(await guard.checkCommand("git status")).toEqual({ argv: ["git", "status"] });
  });

  it("off is explicit: no sandbox, no notice; with bwrap, required and auto sandbox every command", async () => {
    const { project } = layout();
    const off = new PermissionGuard(project, shell, undefined, undefined, { sandbox: "off", bubblewrap: null });
    expect(off.offersCommands()).toBe(true);
    expect(off.sandboxNotice()).toBeUndefined();
    expect(await off.checkCommand("ls | wc")).toEqual({ shell: "ls | wc" });
    for (const permissions of [shell, listed]) {
      const plan = await new PermissionGuard(project, permissions, undefined).checkCommand(
        "shell" in permissions ? "ls" : "git status",
      );
      expect(plan.sandbox?.args).toContain("--unshare-all");
      expect(plan.sandbox?.args).not.toContain("--share-net");
    }
  });

  it("off: a command runs as written (its arguments, exit code and output kept); a missing program is named", async () => {
    const { project } = layout();
    const off = { sandbox: "off", bubblewrap: null } as const;
    expect(await run(project, shell, "printf '%s|' \"$0\" a 'b c'; echo; exit 3", off)).toBe(
      "exit code 3\n/bin/sh|a|b c|\n",
    );
    const missing = { execute: ["no-such-program-prosec"] };
    await expect(run(project, missing, "no-such-program-prosec", off)).rejects.toThrow(
      "No program no-such-program-prosec was found.",
    );
  });

  it("the run emits the notice once, through the runtime", async () => {
    const { project } = layout();
    model = await startFakeAnthropic({ script: [reply.text("a"), reply.text("b")] });
    const { events } = await runAgainst(
      model,
      async (rt) => {
        await rt.session({ at: at(1), prompt: "one", permissions: shell });
        return rt.session({ at: at(2), prompt: "two", permissions: shell });
      },
      { cwd: project, sandbox: "required" },
    );
    // This machine has bwrap: nothing to say.
    expect(events.filter((event) => event.type === "notice")).toEqual([]);
  });
});
