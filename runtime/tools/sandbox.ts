/**
 * The OS sandbox behind the permission checks: `run_command` runs under bubblewrap (`bwrap`, Debian's
 * `bubblewrap`), so a hole in the checks (the next one will be found) still leaves a command inside:
 *
 * - visible: the system folders read-only (`/usr`, `/bin`, `/lib*`, a minimal `/etc`), a scratch HOME
 *   and TMPDIR, and of the working directory only what `read:` allows: all of it under the default
 *   (`**`), else a read-only tmpfs over it with the folders `folder/**` names and the files a literal
 *   path names bound in; `!folder/**` is a tmpfs over that folder. A read glob no bind can express
 *   (`**\/*.md`) refuses the command, never opens the folder. Not `/root`, other homes or `~/.ssh`;
 *   `.env*` files and `.prose/` folders at any depth (`node_modules` included) are hidden, the working
 *   directory's own `.prose/` by construction, the rest by a walk that, when cut at MAX_WALKED
 *   entries or stopped by a folder it cannot read (a path past PATH_MAX), refuses the command;
 *   `.git-credentials` files are hidden too, and a git directory's config that holds a credential is
 *   covered by a redacted copy (git-credentials.ts);
 * - writable: only the readable folders whose whole subtree `write:` allows (`**`, `out/**`); a glob a
 *   bind mount cannot express (`**\/*.md`, any `!` exclude) leaves its folders read-only (fail
 *   closed), and inside a writable folder `.git/`, `.prose/`, programs, their modules, `prose.lock`
 *   and `prose_modules/` stay read-only; after the command, protected names it made there are removed
 *   (protected-names.ts);
 * - binds never follow links: each bound folder or file is opened `O_NOFOLLOW` and the path its
 *   descriptor names must be the path judged (no link in any component), and inside the sandbox,
 *   before the command starts, each bind's device and inode must be the ones opened; a path that
 *   fails is not bound, a bind that changed since refuses the command;
 * - a network namespace of its own (no host loopback, no abstract sockets); where the agent may reach
 *   the network, HTTP(S) through prosec's proxy (network-proxy.ts), under fetch_url's rules;
 * - a fresh PID namespace (the runtime's `/proc/<pid>/environ`, which holds the API key, is not
 *   there; a daemon dies with the command), `--cap-drop ALL` (as root bwrap otherwise keeps every
 *   capability), `--die-with-parent`, limits (a 1 GiB `/tmp`, a 1 GiB file size, and as a user other
 *   than root 4,096 processes), and the scrubbed environment (environment.ts).
 *
 * bwrap is used directly rather than `@anthropic-ai/sandbox-runtime`: that package wraps the same tool
 * but needs Node 22, socat and ripgrep, and takes shell strings, where commands here are often argv.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, lstatSync, readlinkSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { credentialFilesAmong, redactedConfigCover } from "./git-credentials.js";
import { identityOf, PROTECTED_PLACES, placeFolders } from "./protected-names.js";
import { collect, type Walk } from "./sandbox-walk.js";
import { anyCase, placeFiles, unlinkedIdentity } from "./sandbox-paths.js";

/** `RunOptions.sandbox` and `prosec run --sandbox`. */
export type SandboxMode = "required" | "auto" | "off";

/** What the sandbox of one agent's commands is made of. */
export interface SandboxPlan {
  /** The real working directory. */
  readonly cwd: string;
  /** The agent's `read:` globs (undefined: the default, everything but the hidden paths). */
  readonly read: readonly string[] | undefined;
  /** The agent's `write:` globs (undefined: the default, everything but the protected paths). */
  readonly write: readonly string[] | undefined;
  /**
   * Real folders outside the working directory bound read-only at their own paths (a session's
   * skills in `~/.claude/skills/`); one inside it, or one that is not a real folder, is left out.
   */
  readonly readOnly?: readonly string[];
  /**
   * Where skills are read, bound read-only wherever they stand in a writable folder (`protectedPlaces`:
   * the skill roots and the local skill folders of the run's programs); default PROTECTED_PLACES.
   */
  readonly places?: readonly string[];
  /** The skill folders' identities (`runSkillIdentities`): bound read-only wherever a command moved them. */
  readonly placeIdentities?: ReadonlySet<string>;
  /** Entries walked looking for hidden and protected paths before the command is refused (default MAX_WALKED). */
  readonly maxWalked?: number;
}

/** A sandbox ready for one command, or why the command cannot have one. */
export type Sandbox =
  | {
      /** bwrap's arguments and the checking preamble, up to the command's own argv. */
      readonly args: readonly string[];
      /** The writable binds (absolute) and the protected entries in them before the command. */
      readonly writable: readonly string[];
      readonly protectedBefore: ReadonlyMap<string, string>;
    }
  | { readonly refusal: string };

/** Whether bwrap works here, and if not why not (it differs in what to do about it). */
export type BubblewrapProbe =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: "missing" | "no-namespaces"; readonly detail?: string };

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
/**
 * Entries walked looking for hidden and protected paths; past it the command is refused, since what
 * is to be hidden is not known. prosec's own checkout has about 27,000 (node_modules included).
 */
export const MAX_WALKED = 200_000;
/** The sandbox's `/tmp` and the largest file a command may write. */
const TMP_BYTES = 1024 ** 3;
const FILE_BLOCKS = 1024 ** 3 / 1024;
/** Processes a command may have (RLIMIT_NPROC binds only users other than root). */
const MAX_PROCESSES = 4096;
/** Characters bwrap would take as a glob in a pattern; a folder or file a bind can name has none. */
const GLOB = /[*?[\]{}()!+@]/;

/**
 * Runs inside the sandbox before the command: each bind must still be the folder or file that was
 * checked (device:inode; `stat` without -L sees a link as a link), then the limits, then the command.
 */
const PREAMBLE = [
  'n=$1; shift; while [ "$n" -gt 0 ]; do',
  '  [ "$(stat -c %d:%i -- "$1" 2>/dev/null)" = "$2" ] || { echo "prosec: $1 changed after it was checked; the command was refused" >&2; exit 126; }',
  "  shift 2; n=$((n - 1))",
  "done",
  'if [ -n "$PROSEC_BRIDGE" ]; then',
  "  mkfifo /tmp/.prosec-ready",
  '  ("$PROSEC_NODE" -e "$PROSEC_BRIDGE" </dev/null >/dev/null 2>&1 || echo failed > /tmp/.prosec-ready) &',
  "  read ready < /tmp/.prosec-ready",
  '  [ "$ready" = ok ] || { echo "prosec: the network bridge did not start" >&2; exit 126; }',
  "  unset PROSEC_BRIDGE PROSEC_NODE ready",
  "fi",
  `ulimit -f ${FILE_BLOCKS}`,
  `[ "$(id -u)" = 0 ] || ulimit -u ${MAX_PROCESSES}`,
  'exec "$@"',
].join("\n");

let found: BubblewrapProbe | undefined;
let probing: Promise<BubblewrapProbe> | undefined;

function forget(): void {
  found = undefined;
  probing = undefined;
}

/**
 * Whether bwrap works here (probed once per process, or `again`), without blocking: the probe runs
 * only for an agent that may run commands, and is awaited before its session's first request.
 */
export function probeBubblewrap(options: { again?: boolean } = {}): Promise<BubblewrapProbe> {
  if (options.again === true) forget();
  if (found !== undefined) return Promise.resolve(found);
  probing ??= new Promise<BubblewrapProbe>((resolve) => {
    const path = candidate();
    if (path === undefined) return resolve({ ok: false, reason: "missing" });
    execFile(path, probeArguments(), { timeout: 10_000 }, (error, _stdout, stderr) =>
      resolve(error === null ? { ok: true, path } : { ok: false, reason: "no-namespaces", detail: firstLine(stderr) }),
    );
  }).then((probe) => (found = probe));
  return probing;
}

/** The probe's answer when it has run; else it runs now, synchronously (callers that cannot wait). */
export function bubblewrapNow(options: { again?: boolean } = {}): BubblewrapProbe {
  if (options.again === true) forget();
  if (found !== undefined) return found;
  const path = candidate();
  if (path === undefined) return (found = { ok: false, reason: "missing" });
  try {
    execFileSync(path, probeArguments(), { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000 });
    return (found = { ok: true, path });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString("utf8") ?? "";
    return (found = { ok: false, reason: "no-namespaces", detail: firstLine(stderr) });
  }
}

/** The path of a working `bwrap`, or undefined. */
export function bubblewrap(options: { again?: boolean } = {}): string | undefined {
  const probe = bubblewrapNow(options);
  return probe.ok ? probe.path : undefined;
}

function candidate(): string | undefined {
  return (process.env["PATH"] ?? "/usr/bin:/bin")
    .split(delimiter)
    .filter((folder) => isAbsolute(folder))
    .map((folder) => join(folder, "bwrap"))
    .find((path) => existsSync(path));
}

function probeArguments(): string[] {
  return [...systemBinds(), "--unshare-all", "--cap-drop", "ALL", "--", "/bin/true"];
}

function firstLine(text: string | Buffer): string | undefined {
  const line = String(text).trim().split("\n")[0];
  return line === "" ? undefined : line;
}

/** bwrap's arguments for one command of an agent with this plan, or why it is refused. */
export function prepareSandbox(plan: SandboxPlan): Sandbox {
  const view = readView(plan);
  if ("refusal" in view) return view;
  const args = [
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    "--cap-drop",
    "ALL",
    ...systemBinds(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    String(TMP_BYTES),
    "--tmpfs",
    "/tmp",
    "--dir",
    SCRATCH_HOME,
  ];
  const checks: string[] = [];
  const bind = (relative: string, writable: boolean): boolean => {
    const path = relative === "." ? plan.cwd : join(plan.cwd, relative);
    const identity = unlinkedIdentity(path);
    if (identity === undefined) return false;
    args.push(writable ? "--bind" : "--ro-bind", path, path);
    checks.push(path, identity);
    return true;
  };
  const places = plan.places ?? PROTECTED_PLACES;
  // A skill whose folder is the working directory leaves nothing writable.
  const writableRoots = places.includes(".") ? [] : writableFolders(plan).filter((folder) => view.readsFolder(folder));
  const writable: string[] = [];
  if (view.all) {
    if (!bind(".", writableRoots.includes("."))) return { refusal: "The working directory cannot be bound." };
  } else {
    args.push("--tmpfs", plan.cwd);
    for (const folder of view.folders) bind(folder, writableRoots.includes(folder));
    // A literal that names a folder grants the folder's own path, not what is in it: not bound.
    for (const file of view.files)
      if (lstatSync(join(plan.cwd, file), { throwIfNoEntry: false })?.isFile() === true) bind(file, false);
  }
  for (const folder of writableRoots) {
    if (folder === "." || view.folders.includes(folder)) {
      if (unlinkedIdentity(folder === "." ? plan.cwd : join(plan.cwd, folder)) !== undefined)
        writable.push(folder === "." ? plan.cwd : join(plan.cwd, folder));
    } else if (bind(folder, true)) writable.push(join(plan.cwd, folder));
  }
  // Hidden and protected paths in what is bound; the working directory's .prose/ by construction.
  const readOnly: string[] = [];
  const hidden = new Set<string>();
  const ownRuns = join(plan.cwd, ".prose");
  if (view.all && lstatSync(ownRuns, { throwIfNoEntry: false })?.isDirectory() === true) hidden.add(ownRuns);
  const identities = plan.placeIdentities;
  const gitConfigs = new Set<string>();
  const walk: Walk = { cwd: plan.cwd, places, identities, count: 0, limit: plan.maxWalked ?? MAX_WALKED, gitConfigs };
  const roots = view.all ? [plan.cwd] : view.folders.map((folder) => join(plan.cwd, folder));
  for (const root of roots)
    if (!collect(root, readOnly, hidden, walk))
      return {
        refusal:
          walk.unreadable !== undefined
            ? `The folder ${walk.unreadable} cannot be checked for files the sandbox hides (${walk.why}); the command was refused. Move or remove it outside prosec.`
            : `The working directory has more than ${walk.limit} entries to check for files the sandbox hides; the command was refused. Narrow the agent's read: to the folders it needs.`,
      };
  const inWritable = (path: string): boolean => writable.some((root) => path === root || path.startsWith(`${root}/`));
  const protectedBefore = new Map<string, string>();
  // bwrap follows a link at both ends of a bind: a protected entry (or its folder) swapped for a
  // link by a command of another session, between this check and the mount, would bind what the
  // link names (the host's whole /etc over the sandbox's). Each is checked inside as the binds are.
  // Bound, a place that is a file can be neither written, removed nor renamed.
  // Excludes ignore case, as path-rules.ts does: `!Secrets/**` hides `secrets/` too.
  const excluded = view.excluded
    .filter((path) => view.all || view.folders.some((folder) => within(path, folder)))
    .flatMap((path) => anyCase(plan.cwd, path));
  const isExcluded = (path: string): boolean =>
    excluded.some((cover) => path === cover || path.startsWith(`${cover}/`));
  readOnly.push(...placeFiles(plan.cwd, places));
  for (const path of readOnly) {
    if (!inWritable(path)) continue;
    // In an excluded folder (`!.git/**`) it is under a read-only tmpfs: a bind of its own, checked
    // inside, would find the tmpfs there and refuse every command.
    if (isExcluded(path)) {
      remember(protectedBefore, path);
      continue;
    }
    const identity = unlinkedIdentity(path);
    if (identity === undefined) continue;
    args.push("--ro-bind", path, path);
    checks.push(path, identity);
    remember(protectedBefore, path);
  }
  for (const path of hidden) if (inWritable(path)) remember(protectedBefore, path);
  // Links where skills are read that were there before (a user's own `.claude` link) are left alone.
  // In any case: places are lower case, and the after-command walk reads a link in any case as one of them.
  for (const place of placeFolders(places))
    for (const path of anyCase(plan.cwd, place))
      if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true) remember(protectedBefore, path);
  const checkedFolders = new Set<string>();
  for (const path of [...hidden, ...excluded]) {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined || stat.isSymbolicLink()) continue;
    // A cover lands on the entry judged only while its folder is the one judged: `mv sub sub.old`
    // and a new `sub/` would move the .env from under it. The folder is checked inside.
    const folder = dirname(path);
    if (!checkedFolders.has(folder) && (view.all || folder !== plan.cwd)) {
      checkedFolders.add(folder);
      const identity = unlinkedIdentity(folder);
      if (identity === undefined)
        return { refusal: `${folder} changed while the sandbox was prepared; the command was refused.` };
      checks.push(folder, identity);
    }
    if (stat.isDirectory()) args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  // The credentials a checkout keeps (git-credentials.ts): each config holding one is covered by a
  // redacted copy, checked inside (its path must show the copy: no link led the bind elsewhere), as
  // is its folder (a git directory moved away, with a new one in its place, would take the config along).
  for (const path of credentialFilesAmong(plan.cwd, view.files)) gitConfigs.add(path);
  for (const path of gitConfigs) {
    // In an excluded folder (`!.git/**`) the config is covered already, by a read-only tmpfs.
    if (isExcluded(path)) continue;
    if (lstatSync(path, { throwIfNoEntry: false })?.isFile() !== true) continue;
    const cover = redactedConfigCover(path);
    if (cover === undefined) continue;
    const folder = unlinkedIdentity(dirname(path));
    if (folder === undefined)
      return { refusal: `${dirname(path)} changed while the sandbox was prepared; the command was refused.` };
    // A file a literal read: path binds alone sits in a folder bwrap made: its own bind is checked.
    const bound = view.all || view.folders.some((root) => within(path.slice(plan.cwd.length + 1), root));
    // A config bound earlier (a literal read: path, a bare repository's in a writable folder) shows the cover now.
    for (let index = checks.length - 2; index >= 0; index -= 2) if (checks[index] === path) checks.splice(index, 2);
    if (bound) checks.push(dirname(path), folder);
    args.push("--ro-bind", cover, path);
    if (cover !== "/dev/null") {
      const copy = statSync(cover);
      checks.push(path, `${copy.dev}:${copy.ino}`);
    }
  }
  if (!view.all) args.push("--remount-ro", plan.cwd);
  for (const folder of plan.readOnly ?? []) {
    if (folder === "/" || folder === plan.cwd || folder.startsWith(`${plan.cwd}/`) || plan.cwd.startsWith(`${folder}/`))
      continue;
    // Checked inside as every bind is: a folder swapped for a link would bind what the link names.
    const identity = unlinkedIdentity(folder);
    if (identity === undefined || !lstatSync(folder).isDirectory()) continue;
    args.push("--ro-bind", folder, folder);
    checks.push(folder, identity);
  }
  args.push("--chdir", plan.cwd, "--setenv", "HOME", SCRATCH_HOME, "--setenv", "TMPDIR", "/tmp", "--");
  args.push("/bin/sh", "-c", PREAMBLE, "prosec-sandbox", String(checks.length / 2), ...checks);
  return { args, writable, protectedBefore };
}

function remember(identities: Map<string, string>, path: string): void {
  const identity = identityOf(path);
  if (identity !== undefined) identities.set(identity, path);
}

/** What of the working directory `read:` shows a command. */
interface ReadView {
  /** `**`: all of it (less the excluded). */
  readonly all: boolean;
  /** Folders whose whole subtree is readable, parents first. */
  readonly folders: readonly string[];
  readonly files: readonly string[];
  /** `!folder/**` and `!file`: covered. */
  readonly excluded: readonly string[];
  readsFolder(folder: string): boolean;
}

function readView(plan: SandboxPlan): ReadView | { refusal: string } {
  const folders: string[] = [];
  const files: string[] = [];
  const excluded: string[] = [];
  let all = false;
  for (const pattern of plan.read ?? ["**"]) {
    const exclude = pattern.startsWith("!");
    const written = (exclude ? pattern.slice(1) : pattern).replace(/^\.\//, "");
    const target = literalTarget(written);
    if (target === undefined)
      return {
        refusal: `This agent's read: glob "${pattern}" cannot be carried into the OS sandbox (a bind shows whole folders, folder/**, or single files), so its commands are refused.`,
      };
    if (exclude) excluded.push(target.path);
    else if (target.path === ".") all = true;
    else if (target.folder) folders.push(target.path);
    else files.push(target.path);
  }
  const visible = (path: string): boolean => excluded.every((folder) => !within(path, folder));
  const readable = [...new Set(folders)]
    .filter(visible)
    .sort((a, b) => a.split("/").length - b.split("/").length)
    .filter((folder, index, sorted) => !sorted.slice(0, index).some((parent) => within(folder, parent)));
  return {
    all,
    folders: all ? [] : readable,
    files: all ? [] : files.filter((file) => visible(file) && !readable.some((folder) => within(file, folder))),
    excluded,
    readsFolder: (folder) => visible(folder) && (all || readable.some((root) => within(folder, root))),
  };
}

/** `folder/**` or `**` (a folder), a literal path (a file), or undefined for a glob no bind can express. */
function literalTarget(written: string): { path: string; folder: boolean } | undefined {
  if (written === "**") return { path: ".", folder: true };
  const folder = written.endsWith("/**");
  const path = folder ? written.slice(0, -3) : written;
  if (path === "" || GLOB.test(path) || path.split("/").some((part) => part === ".." || part === ".")) return undefined;
  return { path, folder };
}

function within(path: string, folder: string): boolean {
  return folder === "." || path === folder || path.startsWith(`${folder}/`);
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
    const target = literalTarget(pattern.replace(/^\.\//, ""));
    if (target?.folder === true) folders.push(target.path);
  }
  return folders.includes(".") ? ["."] : [...new Set(folders)];
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
