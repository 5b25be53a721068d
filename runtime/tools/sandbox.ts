/**
 * The OS sandbox behind the permission checks: `run_command` runs under bubblewrap (`bwrap`, Debian's
 * `bubblewrap`), so a hole in the checks (the next one will be found) still leaves a command inside:
 *
 * - visible: the system folders read-only (`/usr`, `/bin`, `/lib*`, a minimal `/etc`), the working
 *   directory, a scratch HOME and TMPDIR; not `/root`, other homes or `~/.ssh`; `.env*` files and
 *   `.prose/` are hidden (an empty file or folder over them);
 * - writable: only the folders whose whole subtree `write:` allows (`**`, `out/**`); a glob a bind
 *   mount cannot express (`**\/*.md`, any `!` exclude) leaves its folders read-only (fail closed), and
 *   inside a writable folder `.git/`, `.prose/`, programs, their modules, `prose.lock` and
 *   `prose_modules/` stay read-only;
 * - no network unless `network: allow` (a URL list cannot be enforced on a command's own sockets, so
 *   a list gives commands none);
 * - a fresh PID namespace (the runtime's `/proc/<pid>/environ`, which holds the API key, is not
 *   there), `--cap-drop ALL` (as root bwrap otherwise keeps every capability), `--die-with-parent`,
 *   and the scrubbed environment (environment.ts).
 *
 * bwrap is used directly rather than `@anthropic-ai/sandbox-runtime`: that package wraps the same tool
 * but needs Node 22, socat and ripgrep, and takes shell strings, where commands here are often argv.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readlinkSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** `RunOptions.sandbox` and `prosec run --sandbox`. */
export type SandboxMode = "required" | "auto" | "off";

/** What the sandbox of one agent's commands is made of. */
export interface SandboxPlan {
  /** The real working directory. */
  readonly cwd: string;
  /** The agent's `write:` globs (undefined: the default, everything but the protected paths). */
  readonly write: readonly string[] | undefined;
  /** `network: allow` exactly. */
  readonly network: boolean;
}

const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"];
/** What programs need of /etc: users, name resolution, certificates, the loader, `alternatives` links. */
const ETC_ENTRIES = [
  "passwd",
  "group",
  "nsswitch.conf",
  "hosts",
  "resolv.conf",
  "host.conf",
  "localtime",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "alternatives",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "mime.types",
];
const SCRATCH_HOME = "/tmp/home";
/** Entries walked looking for protected paths in a writable folder; past it the folder is read-only. */
const MAX_WALKED = 20_000;
const SKIPPED = new Set(["node_modules"]);

let found: string | null | undefined;

/** The path of a working `bwrap`, or undefined (probed once per process, or `again`). */
export function bubblewrap(options: { again?: boolean } = {}): string | undefined {
  if (found === undefined || (options.again === true && found === null)) found = probe();
  return found ?? undefined;
}

function probe(): string | null {
  const candidates = (process.env["PATH"] ?? "/usr/bin:/bin")
    .split(delimiter)
    .filter((folder) => isAbsolute(folder))
    .map((folder) => join(folder, "bwrap"));
  const path = candidates.find((candidate) => existsSync(candidate));
  if (path === undefined) return null;
  try {
    execFileSync(path, [...systemBinds(), "--unshare-all", "--cap-drop", "ALL", "--", "/bin/true"], {
      stdio: "ignore",
      timeout: 10_000,
    });
    return path;
  } catch {
    return null;
  }
}

/** bwrap's arguments, up to and including the `--` before the command. */
export function sandboxArguments(plan: SandboxPlan): string[] {
  const args = [
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    ...(plan.network ? ["--share-net"] : []),
    "--cap-drop",
    "ALL",
    ...systemBinds(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--dir",
    SCRATCH_HOME,
  ];
  // Protected and hidden paths anywhere in the working directory; a tree too large to walk has none
  // of it writable, since what it protects is not known.
  const readOnly: string[] = [];
  const hidden: string[] = [];
  const walked = collect(plan.cwd, readOnly, hidden, { count: 0 });
  const writable = walked ? writableFolders(plan) : [];
  args.push(writable.includes(".") ? "--bind" : "--ro-bind", plan.cwd, plan.cwd);
  for (const folder of writable)
    if (folder !== ".") args.push("--bind", join(plan.cwd, folder), join(plan.cwd, folder));
  for (const path of readOnly) args.push("--ro-bind", path, path);
  for (const path of hidden) {
    if (lstatSync(path).isDirectory()) args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  args.push("--chdir", plan.cwd, "--setenv", "HOME", SCRATCH_HOME, "--setenv", "TMPDIR", "/tmp", "--");
  return args;
}

/**
 * The folders (relative, `.` for the working directory) whose whole subtree `write:` allows: only a
 * pattern `folder/**` (or `**`) with no excludes in the list; anything else is read-only.
 */
export function writableFolders(plan: SandboxPlan): string[] {
  const patterns = plan.write ?? ["**"];
  if (patterns.some((pattern) => pattern.startsWith("!"))) return [];
  const folders: string[] = [];
  for (const pattern of patterns) {
    const written = pattern.replace(/^\.\//, "");
    if (written === "**") folders.push(".");
    else if (written.endsWith("/**")) {
      const folder = written.slice(0, -3);
      if (!/[*?[\]{}()!+@]/.test(folder) && !folder.split("/").includes("..") && existsSync(join(plan.cwd, folder)))
        folders.push(folder);
    }
  }
  return folders.includes(".") ? ["."] : folders;
}

/** Protected (read-only) and hidden paths under `folder`; false when it has more than MAX_WALKED entries. */
function collect(folder: string, readOnly: string[], hidden: string[], walk: { count: number }): boolean {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (++walk.count > MAX_WALKED) return false;
    const path = join(folder, entry.name);
    const name = entry.name.toLowerCase();
    if (entry.isSymbolicLink()) continue;
    if (name.startsWith(".env") || name === ".prose") hidden.push(path);
    else if (isProtected(name)) readOnly.push(path);
    else if (entry.isDirectory() && !SKIPPED.has(name) && !collect(path, readOnly, hidden, walk)) return false;
  }
  return true;
}

function isProtected(name: string): boolean {
  return (
    name === ".git" ||
    name === "prose.lock" ||
    name === "prose_modules" ||
    name === ".mcp.json" ||
    name === "skills" ||
    name.endsWith(".prose") ||
    name.endsWith(".prose.ts") ||
    name.endsWith(".prose.js")
  );
}

/** The system folders read-only (a merged-/usr link as a link), and the few /etc entries programs need. */
function systemBinds(): string[] {
  const args: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    if (!existsSync(folder)) continue;
    const stat = lstatSync(folder);
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(folder), folder);
    else args.push("--ro-bind", folder, folder);
  }
  for (const entry of ETC_ENTRIES) args.push("--ro-bind-try", join("/etc", entry), join("/etc", entry));
  return args;
}
