/**
 * The credentials a checkout keeps (`actions/checkout`'s extraheader, a token in a remote URL, a
 * `.git-credentials` file): the file tools never read them, and a command in the OS sandbox sees a
 * redacted config on a real repository where `git log`, `git diff` and `git status` still work.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Permissions } from "../../runtime/types.js";
import { readFileTool, runCommandTool, searchFilesTool } from "../../runtime/tools/builtin.js";
import { redactGitConfig, removeRedactedCopies } from "../../runtime/tools/git-credentials.js";
import { PermissionGuard } from "../../runtime/tools/permissions.js";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { temporaryFolder } from "../support/temp.js";

const TOKEN = "ghs_CANARYTOKEN0123456789";
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString("base64");

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: cwd,
      GIT_AUTHOR_NAME: "a",
      GIT_AUTHOR_EMAIL: "a@b",
      GIT_COMMITTER_NAME: "a",
      GIT_COMMITTER_EMAIL: "a@b",
    },
  });
}

/** A repository as `actions/checkout` leaves it: a commit, an extraheader, a token in a remote URL. */
function checkout(format: "sha1" | "sha256" = "sha1"): string {
  const project = temporaryFolder("prosec-gitcred-");
  git(project, "init", "-q", `--object-format=${format}`);
  writeFileSync(join(project, "notes.md"), "one\n");
  git(project, "add", "notes.md");
  git(project, "commit", "-q", "-m", "first commit");
  git(project, "config", "http.https://github.com/.extraheader", `AUTHORIZATION: basic ${BASIC}`);
  git(project, "remote", "add", "origin", `https://x-access-token:${TOKEN}@github.com/o/r.git`);
  git(project, "remote", "add", "bare", `https://${TOKEN}@github.com/o/r.git`);
  git(project, "config", "remote.origin.promisor", "true");
  writeFileSync(join(project, "notes.md"), "one\ntwo\n");
  writeFileSync(join(project, ".git-credentials"), `https://x:${TOKEN}@github.com\n`);
  // A home folder as the working directory: the GitHub CLI's tokens.
  mkdirSync(join(project, ".config/gh"), { recursive: true });
  writeFileSync(join(project, ".config/gh/hosts.yml"), `github.com:\n    oauth_token: ${TOKEN}\n`);
  return project;
}

function guard(project: string, permissions: Permissions = { bash: "allow" }): PermissionGuard {
  return new PermissionGuard(project, permissions, undefined);
}

async function command(project: string, line: string, permissions?: Permissions): Promise<string> {
  const permissionsGuard = guard(project, permissions);
  return runCommandTool.run(
    { command: line },
    { cwd: project, signal: new AbortController().signal, permissions: permissionsGuard },
  );
}

describe("redactGitConfig", () => {
  it("drops credential keys with their continuations and URLs' user information, keeps the rest", () => {
    const text = [
      "[core]",
      "\trepositoryformatversion = 1",
      "[extensions]",
      "\tobjectformat = sha256",
      '[http "https://github.com/"]',
      `\textraHeader = AUTHORIZATION: basic \\`,
      `\t${TOKEN}`,
      "[http] extraheader = x " + TOKEN,
      '[remote "origin"]',
      `\turl = https://x-access-token:${TOKEN}@github.com/o/r.git`,
      `\tpushurl = ssh://git:${TOKEN}@host/r`,
      "\tfetch = +refs/heads/*:refs/remotes/origin/*",
      `[url "https://${TOKEN}@github.com/"]`,
      "\tinsteadOf = gh:",
      "[credential]",
      `\thelper = "!f() { echo password=${TOKEN}; }; f"`,
      `[sendemail] smtpPass = ${TOKEN}`,
      "",
    ].join("\n");
    const redacted = redactGitConfig(text);
    expect(redacted).not.toContain(TOKEN);
    expect(redacted).toContain("objectformat = sha256");
    expect(redacted).toContain("url = https://github.com/o/r.git");
    expect(redacted).toContain("pushurl = ssh://git@host/r");
    expect(redacted).toContain("[http]");
    expect(redacted).toContain("fetch = +refs/heads/*:refs/remotes/origin/*");
    expect(redactGitConfig(`url = https://me@mail.org:p@${TOKEN}@host/r`)).toBe("url = https://host/r");
    expect(redactGitConfig(`url = ssh://git:p@${TOKEN}@host/r x@y`)).toBe("url = ssh://git@host/r x@y");
    expect(redactGitConfig("url = https://host/a@b")).toBe("url = https://host/a@b");
    expect(redactGitConfig("[core]\n\tbare = false\n")).toBe("[core]\n\tbare = false\n");
  });
});

describe("the file tools and a checkout's credentials", () => {
  it("refuse .git/config, a submodule's config, a bare repository's and .git-credentials, even when named", async () => {
    const project = checkout();
    mkdirSync(join(project, ".git/modules/sub"), { recursive: true });
    writeFileSync(join(project, ".git/modules/sub/config"), `url = https://${TOKEN}@h/r\n`);
    git(project, "clone", "-q", "--bare", ".", "mirror");
    git(join(project, "mirror"), "config", "http.extraheader", `AUTHORIZATION: basic ${BASIC}`);
    symlinkSync(".git/config", join(project, "link"));
    const context = (permissions: Permissions) => ({
      cwd: project,
      signal: new AbortController().signal,
      permissions: guard(project, permissions),
    });
    for (const path of [
      ".git/config",
      ".GIT/CONFIG",
      ".git/modules/sub/config",
      "mirror/config",
      ".git-credentials",
      ".config/gh/hosts.yml",
      "link",
    ])
      for (const read of [["**"], [".git/**", "mirror/**", path]])
        await expect(readFileTool.run({ path }, context({ read })), `${path} ${read.join()}`).rejects.toThrow(
          /may hold a checkout's credentials/,
        );
    // The rest of .git stays readable: HEAD, history.
    expect(await readFileTool.run({ path: ".git/HEAD" }, context({}))).toContain("ref: refs/heads/");
    const found = await searchFilesTool.run({ pattern: "CANARY" }, context({}));
    expect(found).toBe("(no matches)");
  });
});

describe("a command in the OS sandbox and a checkout's credentials", () => {
  beforeAll(() => ensureBubblewrap());
  afterAll(() => removeRedactedCopies());

  it.each(["sha1", "sha256"] as const)("sees a redacted config; git log, diff, status work (%s)", async (format) => {
    const project = checkout(format);
    symlinkSync(".git/config", join(project, "link"));
    // A submodule's git directory, and a bare repository, each with a token.
    git(project, "init", "-q", "--bare", ".git/modules/sub");
    git(join(project, ".git/modules/sub"), "config", "remote.origin.url", `https://${TOKEN}@github.com/o/s.git`);
    git(project, "init", "-q", "--bare", "mirror");
    git(join(project, "mirror"), "config", "http.extraheader", `AUTHORIZATION: basic ${BASIC}`);
    const routes = [
      "cat .git/config",
      "git config -l",
      "git config --get-regexp '.*'",
      "git remote -v",
      "cat link",
      "cat /proc/self/root$PWD/.git/config",
      "cat .git-credentials",
      "cat .git/modules/sub/config mirror/config",
      "git -C mirror config -l",
      "cat .config/gh/hosts.yml",
      "ln -s .git/config mine; cat mine",
      "ln .git/config hard 2>&1; cat hard",
      "grep -r CANARY . 2>/dev/null",
    ].join("; echo ---; ");
    const seen = await command(project, `${routes}; echo end`);
    expect(seen).toMatch(/^end$/m);
    expect(seen).not.toContain(TOKEN);
    expect(seen).not.toContain(BASIC);
    expect(seen).toContain("https://github.com/o/r.git");
    const history = await command(
      project,
      "git log --oneline; git diff --stat; git status --short; git rev-parse --show-object-format",
    );
    expect(history).toMatch(/^exit code 0\n/);
    expect(history).toContain("first commit");
    expect(history).toMatch(/notes\.md \| 1 \+/);
    expect(history).toContain(" M notes.md");
    expect(history).toContain(format);
    // The config on disk is untouched.
    expect(readFileSync(join(project, ".git/config"), "utf8")).toContain(TOKEN);
  });

  it("covers the config read through a literal path and a worktree's gitdir pointer", async () => {
    const project = checkout();
    git(project, "worktree", "add", "-q", "wt");
    const literal = await command(project, "cat .git/config", { bash: "allow", read: [".git/config"] });
    expect(literal).toMatch(/^exit code 0\n/);
    expect(literal).toContain("repositoryformatversion");
    expect(literal).not.toContain(TOKEN);
    // A .git excluded from reads is covered whole: its config needs no cover of its own.
    expect(await command(project, "ls -A .git; echo end", { bash: "allow", read: ["**", "!.git/**"] })).toMatch(
      /^exit code 0\nend\n$/,
    );
    const inWorktree = await command(project, "cd wt && git config -l && git log --oneline");
    expect(inWorktree).toContain("first commit");
    expect(inWorktree).not.toContain(TOKEN);
    expect(inWorktree).not.toContain(BASIC);
  });
});
