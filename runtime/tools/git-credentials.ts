/**
 * Credentials a git checkout keeps. `actions/checkout` writes the job's token into `.git/config`
 * (`http.https://github.com/.extraheader = AUTHORIZATION: basic ...`), a remote URL may carry one
 * (`https://user:token@host/repo`), and `~/.git-credentials` holds them in clear. A secret reaches a
 * command only through a session's `env:`, so:
 *
 * - the file tools never read a git directory's config (`.git/config`, `.git/config.worktree`, a
 *   submodule's `.git/modules/<name>/config`, a worktree's `config.worktree`, a bare repository's
 *   `config`) nor a `.git-credentials` file, nor the GitHub CLI's `.config/gh/hosts.yml` (reachable
 *   when a home folder is the working directory), whatever the globs say (path-rules.ts);
 * - inside the OS sandbox, each such config holding a credential is covered by a redacted copy
 *   (`redactedConfigCover`): lines of credential keys (`extraheader`, `helper`, any key naming a
 *   password, token or secret) removed with their continuations, the user information of every URL
 *   removed, everything else kept, so `git log`, `git diff`, `git status` work as before (a sha256 or
 *   partial-clone repository's `extensions` included). A config that cannot be read safely (not a
 *   regular file, over CONFIG_LIMIT bytes) is covered by an empty file; `.git-credentials` and
 *   `.config/gh/hosts.yml` are hidden as `.env` files are (sandbox-walk.ts).
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { isGitDirectory } from "./protected-names.js";

/** The largest config read to redact; a larger one is covered by an empty file. */
const CONFIG_LIMIT = 1024 * 1024;
/** How deep submodules' git directories (`.git/modules/a/modules/b`) are looked for. */
const MODULE_DEPTH = 8;

/** A key whose value is a credential (after the last `.`, any case). */
const CREDENTIAL_KEY = /^(extraheader|helper|[a-z0-9-]*(pass|passwd|password|token|secret)[a-z0-9-]*)$/i;
/**
 * The user information of a URL (`https://user:token@`, `https://token@`, `ssh://git:pw@`), up to the
 * last `@` before the host (a password may hold an `@` git would take as its own).
 */
const URL_USER = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/"'\\:]*)(:[^\s/"'\\]*)?@/gi;
/** A section header, and what follows it on its line (`[http] extraheader = ...` is one line to git). */
const SECTION = /^(\s*\[[^\]]*\])(.*)$/;

/**
 * Whether `parts` (a path's parts, lower case, relative to the working directory) name a credential
 * file of git: a config in a `.git` folder or a `*.git` one (bare), or a `.git-credentials` file.
 */
export function isGitCredentialPath(parts: readonly string[]): boolean {
  const last = parts.at(-1) ?? "";
  if (parts.some((part) => part.startsWith(".git-credentials"))) return true;
  if (isGhHosts(parts)) return true;
  if (last !== "config" && last !== "config.worktree") return false;
  return parts.slice(0, -1).some((part) => part === ".git" || part.endsWith(".git"));
}

/** Whether `parts` (lower case) end in `.config/gh/hosts.yml`: GitHub CLI's tokens, when a home is in reach. */
export function isGhHosts(parts: readonly string[]): boolean {
  return parts.at(-1) === "hosts.yml" && parts.at(-2) === "gh" && parts.at(-3) === ".config";
}

/** Whether the folder `folder` is a git directory (a bare repository, a worktree's or submodule's). */
export function isGitDirectoryFolder(folder: string): boolean {
  try {
    return isGitDirectory(new Set(readdirSync(folder)));
  } catch {
    return false;
  }
}

/**
 * The configs of the git directory `gitDir` (absolute): its `config` and `config.worktree`, its
 * worktrees' `config.worktree`, and its submodules' configs (`modules/**`), those that exist.
 */
export function gitConfigFiles(gitDir: string, depth = 0): string[] {
  const files = [join(gitDir, "config"), join(gitDir, "config.worktree")];
  for (const worktree of folderNames(join(gitDir, "worktrees")))
    files.push(join(gitDir, "worktrees", worktree, "config.worktree"));
  if (depth < MODULE_DEPTH) files.push(...moduleConfigs(join(gitDir, "modules"), depth));
  return files.filter((file) => existsSync(file));
}

/** The configs of the submodules' git directories under `folder` (a module's name may hold `/`). */
function moduleConfigs(folder: string, depth: number): string[] {
  const found: string[] = [];
  for (const name of folderNames(folder)) {
    const path = join(folder, name);
    if (isGitDirectoryFolder(path)) found.push(...gitConfigFiles(path, depth + 1));
    else if (depth < MODULE_DEPTH) found.push(...moduleConfigs(path, depth + 1));
  }
  return found;
}

function folderNames(folder: string): string[] {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** The config's text without credentials: credential keys' lines (and continuations) and URLs' user information removed. */
export function redactGitConfig(text: string): string {
  const kept: string[] = [];
  let dropping = false;
  for (const line of text.split("\n")) {
    const continued = /(^|[^\\])(\\\\)*\\\r?$/.test(line);
    if (dropping) {
      dropping = continued;
      continue;
    }
    const section = SECTION.exec(line);
    const rest = section === null ? line : (section[2] ?? "");
    const key = /^\s*([a-z0-9.-]+)\s*(=|$)/i.exec(rest)?.[1];
    if (key !== undefined && CREDENTIAL_KEY.test(key.split(".").at(-1) ?? "")) {
      dropping = continued;
      if (section !== null) kept.push(redactUrls(section[1] ?? ""));
      continue;
    }
    kept.push(redactUrls(line));
  }
  return kept.join("\n");
}

/**
 * URLs without their credentials: a password removed (`ssh://git:pw@` keeps `git@`), and over HTTP(S)
 * the whole user information (`https://<token>@github.com` is how a token is often given).
 */
function redactUrls(line: string): string {
  return line.replace(URL_USER, (_match, scheme: string, user: string, password: string | undefined) =>
    /^https?:/i.test(scheme) || (password !== undefined && user === "") ? scheme : `${scheme}${user}@`,
  );
}

let copies: string | undefined;
let exitHook = false;

/** The folder of redacted copies: private to this process, removed when it exits. */
function copiesFolder(): string {
  if (copies !== undefined && existsSync(copies)) return copies;
  const folder = mkdtempSync(join(tmpdir(), "prosec-git-config-"));
  if (!exitHook) process.once("exit", removeRedactedCopies);
  exitHook = true;
  return (copies = folder);
}

/** Removes the redacted copies made so far (they hold no credential; tests leave no folder behind). */
export function removeRedactedCopies(): void {
  if (copies !== undefined) rmSync(copies, { recursive: true, force: true });
  copies = undefined;
}

/**
 * Of `files` (paths relative to `cwd`, which a sandbox binds one by one), those that may hold a
 * credential: a credentials file, or a git directory's config.
 */
export function credentialFilesAmong(cwd: string, files: readonly string[]): string[] {
  return files
    .filter((file) => {
      const parts = file.toLowerCase().split("/");
      if (isGitCredentialPath(parts)) return true;
      return /^config(\.worktree)?$/.test(parts.at(-1) ?? "") && isGitDirectoryFolder(dirname(join(cwd, file)));
    })
    .map((file) => join(cwd, file));
}

/**
 * The file to bind over the git config at `path` inside the sandbox: a redacted copy when it holds a
 * credential, `/dev/null` when it cannot be read safely (a FIFO, a device, a link, too large),
 * undefined when it holds none (nothing to cover) or is gone.
 */
export function redactedConfigCover(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : "/dev/null";
  }
  let text: string;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > CONFIG_LIMIT) return "/dev/null";
    text = readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
  const redacted = redactGitConfig(text);
  if (redacted === text) return undefined;
  const copy = join(copiesFolder(), `${createHash("sha256").update(redacted).digest("hex")}.config`);
  if (!existsSync(copy)) writeFileSync(copy, redacted, { mode: 0o444 });
  return copy;
}
