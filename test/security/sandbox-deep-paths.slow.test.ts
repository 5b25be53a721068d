/**
 * The sandbox against paths longer than PATH_MAX (issue 38, fourth attack set): a command can make
 * them with relative names (`mkdir d; cd d` 2,100 times), and neither the walk that finds what to
 * hide nor the scan for protected names afterwards can read past 4,096 bytes of absolute path.
 * Real bubblewrap, real sh and coreutils.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Permissions } from "../../runtime/types.js";
import { runCommandTool } from "../../runtime/tools/builtin.js";
import { PermissionGuard, type GuardSettings } from "../../runtime/tools/permissions.js";
import { prepareSandbox } from "../../runtime/tools/sandbox.js";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { temporaryFolder } from "../runtime/helpers.js";

const deepTrees: string[] = [];
let bwrap = "";

beforeAll(() => {
  bwrap = ensureBubblewrap();
});
// Node's rmSync cannot remove a tree past PATH_MAX; GNU rm can (it walks with openat).
afterEach(() => {
  for (const tree of deepTrees.splice(0)) execFileSync("rm", ["-rf", "--", tree]);
});

async function command(
  project: string,
  permissions: Permissions,
  line: string,
  settings: GuardSettings = {},
): Promise<string> {
  const guard = new PermissionGuard(project, permissions, undefined, undefined, settings);
  const context = { cwd: project, signal: new AbortController().signal, permissions: guard };
  return Promise.resolve(runCommandTool.run({ command: line }, context)).catch(
    (error: Error) => `TOOL ERROR ${error.message}`,
  );
}

/** Shell that goes `depth` folders `d` down from the working directory (made when `make`). */
function down(depth: number, make: boolean): string {
  const step = make ? "mkdir -p d && cd -P d" : "cd -P d";
  return `P=$PWD; i=0; while [ $i -lt ${depth} ]; do ${step} || exit 3; i=$((i+1)); done`;
}

describe("paths past PATH_MAX", () => {
  it("a hidden .env moved past PATH_MAX stays hidden: the next command is refused, not shown it", async () => {
    const project = temporaryFolder("prosec-deep-");
    deepTrees.push(join(project, "d"));
    mkdirSync(join(project, "sub"));
    writeFileSync(join(project, "sub/.env"), "DB_PASSWORD=CANARY-DOTENV\n");
    // The .env is covered by /dev/null in here; moving its folder carries the cover along.
    const moved = await command(project, { bash: "allow" }, `${down(2100, true)}; mv "$P/sub" ./sub && echo moved`);
    expect(moved).toMatch(/moved/);
    expect(existsSync(join(project, "sub"))).toBe(false);
    // Next command: fetch the folder back up from 100 levels above it, and read the .env.
    const back = `${down(2000, false)}; mv "$(printf "d/%.0s" $(seq 100))sub" "$P/sub2"; cat "$P/sub2/.env"`;
    const read = await command(project, { bash: "allow" }, back);
    expect(read).not.toMatch(/CANARY-DOTENV/);
    expect(read).toMatch(/TOOL ERROR .*cannot be checked for files the sandbox hides.*refused/s);
  }, 120_000);

  it("a hook made past PATH_MAX neither stops the run nor passes unreported", async () => {
    const project = temporaryFolder("prosec-deep-");
    deepTrees.push(join(project, "d"));
    const hook = `${down(2100, true)}; mkdir -p .git/hooks && printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/post-checkout && echo made`;
    const made = await command(project, { bash: "allow" }, hook);
    // Before the fix the scan's lstat threw ENAMETOOLONG out of the child's exit handler: the
    // process died with an uncaught exception and the hook stayed, unreported.
    expect(made).toMatch(/^TOOL ERROR [\s\S]*made[\s\S]*could not be checked for protected names \(ENAMETOOLONG\)/);
  }, 120_000);
});

describe("the read-only binds inside a writable folder", () => {
  it("a nested .git swapped for a link to outside between the check and the mount refuses the command", async () => {
    const root = temporaryFolder("prosec-swap-");
    const project = join(root, "project");
    mkdirSync(join(project, "docs/sub/.git"), { recursive: true });
    const sandbox = prepareSandbox({ cwd: project, read: undefined, write: ["docs/**"] });
    if ("refusal" in sandbox) throw new Error(sandbox.refusal);
    // What a second session's command does meanwhile: docs/sub/.git (bound read-only) made a link
    // to /etc. bwrap's --ro-bind follows it at both ends: the host's whole /etc over the sandbox's
    // few entries of it.
    renameSync(join(project, "docs/sub"), join(project, "docs/sub.old"));
    mkdirSync(join(project, "docs/sub"));
    // Relative, as many levels up as the folder is deep: in the sandbox the link ends at its /etc.
    const up = join(project, "docs/sub").split("/").length - 1;
    symlinkSync(`${"../".repeat(up)}etc`, join(project, "docs/sub/.git"));
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(bwrap, [...sandbox.args, "/bin/sh", "-c", "ls /etc"], (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : (error.code as number), output: stdout + stderr }),
      );
    });
    expect(result.output).not.toMatch(/hostname|shadow|os-release/);
    expect(result.output).toMatch(/docs\/sub\/\.git changed after it was checked; the command was refused/);
    expect(result.code).toBe(126);
  });

  it("a .env moved from under its cover between the check and the mount refuses the command", async () => {
    const project = temporaryFolder("prosec-swap-");
    mkdirSync(join(project, "docs/sub"), { recursive: true });
    writeFileSync(join(project, "docs/sub/.env"), "DB_PASSWORD=CANARY-DOTENV\n");
    const sandbox = prepareSandbox({ cwd: project, read: undefined, write: ["docs/**"] });
    if ("refusal" in sandbox) throw new Error(sandbox.refusal);
    // Another session's command: the folder moved aside, a new one in its place. The cover lands
    // on the new, empty docs/sub/.env; the real one is in docs/sub.old, uncovered.
    renameSync(join(project, "docs/sub"), join(project, "docs/sub.old"));
    mkdirSync(join(project, "docs/sub"));
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(bwrap, [...sandbox.args, "/bin/sh", "-c", "cat docs/sub.old/.env"], (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : (error.code as number), output: stdout + stderr }),
      );
    });
    expect(result.output).not.toMatch(/CANARY-DOTENV/);
    expect(result.output).toMatch(/docs\/sub changed after it was checked; the command was refused/);
    expect(result.code).toBe(126);
  });
});

describe("a git repository without .git in its name", () => {
  const plant = (folder: string, marker: string): string =>
    `mkdir -p ${folder}/objects ${folder}/refs && echo "ref: refs/heads/main" > ${folder}/HEAD && ` +
    `printf '[core]\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = "touch ${marker}; false"\\n' > ${folder}/config && echo planted`;
  /** `git status` as the user would run it there, with no configuration of theirs. */
  const userGit = (folder: string, home: string): void => {
    try {
      execFileSync("git", ["status"], {
        cwd: folder,
        env: { PATH: process.env["PATH"], HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CEILING_DIRECTORIES: home },
        stdio: "ignore",
      });
    } catch {
      // Not a repository: what the fix makes of it.
    }
  };

  it("a bare repository a command plants in a writable folder is unmade before the user's git runs it", async () => {
    const root = temporaryFolder("prosec-bare-");
    const project = join(root, "project");
    mkdirSync(join(project, "docs"), { recursive: true });
    const marker = join(root, "PWNED");
    const made = await command(project, { bash: "allow", write: ["docs/**"] }, plant("docs/evil", marker));
    expect(made).toMatch(
      /^TOOL ERROR [\s\S]*planted[\s\S]*removed docs\/evil\/HEAD: a command may not make a git repository/,
    );
    userGit(join(project, "docs/evil"), root);
    expect(existsSync(marker)).toBe(false);
  });

  it("a bare repository already there is bound read-only: its config cannot be given a command", async () => {
    const root = temporaryFolder("prosec-bare-");
    const project = join(root, "project");
    mkdirSync(join(project, "docs"), { recursive: true });
    execFileSync("git", ["init", "-q", "--bare", join(project, "docs/repo.git")]);
    const marker = join(root, "PWNED");
    const out = await command(project, { bash: "allow", write: ["docs/**"] }, plant("docs/repo.git", marker));
    expect(out).not.toMatch(/planted/);
    expect(existsSync(join(project, "docs/repo.git/HEAD"))).toBe(true);
    userGit(join(project, "docs/repo.git"), root);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the proxy against the host's loopback, spelt every way (attacks that hold)", () => {
  it("no spelling, name, tunnel, Host header or origin-form request reaches a service on 127.0.0.1", async () => {
    const project = temporaryFolder("prosec-proxy-");
    const hits: string[] = [];
    const server = createServer((request, response) => (hits.push(request.url ?? ""), response.end("SINK-REACHED\n")));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const curl = (args: string): string => `curl -sS --max-time 5 ${args} 2>&1; echo`;
      const line = [
        curl(`http://[::ffff:127.0.0.1]:${port}/mapped`),
        curl(`http://0177.0.0.1:${port}/octal`),
        curl(`http://2130706433:${port}/decimal`),
        curl(`http://0.0.0.0:${port}/unspecified`),
        curl(`http://loop.test:${port}/resolves-to-loopback`),
        curl(`-p http://[::ffff:7f00:1]:${port}/connect-mapped`),
        curl(`-p http://loop.test:${port}/connect-name`),
        curl(`-H "Host: loop.test" http://127.0.0.1:${port}/host-header`),
        curl(`--noproxy "*" http://127.0.0.1:${port}/direct`),
        curl(`--noproxy "*" --request-target /origin-form -H "Host: 127.0.0.1:${port}" http://127.0.0.1:3128/`),
      ].join("; ");
      const resolveHost = async (host: string): Promise<string[]> => (host.endsWith(".test") ? ["127.0.0.1"] : []);
      const out = await command(project, { bash: "allow", network: "allow" }, line, { resolveHost });
      expect(out).not.toMatch(/SINK-REACHED/);
      // Each went through the proxy and was refused there (the direct one has no route at all).
      for (const what of ["/mapped", "/octal", "/decimal", "/unspecified", "/resolves-to-loopback", "/host-header"])
        expect(out).toMatch(new RegExp(`the network proxy refused http://\\S*${what}: `));
      expect(out).toMatch(/refused CONNECT \[::ffff:7f00:1\]:\d+: .*loopback/);
      expect(out).toMatch(/refused CONNECT loop\.test:\d+: loop\.test resolves to 127\.0\.0\.1/);
      expect(out).toMatch(/refused \/origin-form: Not a URL/);
      expect(out).toMatch(/Failed to connect to 127\.0\.0\.1/);
      expect(hits).toEqual([]);
    } finally {
      server.close();
    }
  });
});
