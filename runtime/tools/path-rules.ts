/**
 * Which paths a session may read or write. A path is judged twice, as asked and at its real location
 * (symlinks followed, `..` resolved), relative to the working directory; both must pass:
 *
 * 1. inside the working directory, whatever the globs say;
 * 2. not protected: for writes `.git`, `.prose`, programs (`*.prose`), their modules (`*.prose.ts`,
 *    `*.prose.js`), `prose.lock`, `prose_modules` and `.mcp.json`, for reads `.prose` and `.env*`, as any
 *    part of the path, in any case (`.GIT/config`, `sub/.git/config`); for writes also the working
 *    directory's `skills/` and `.claude/skills/`, where skills are read (`src/skills/` is not), and the
 *    local skill folders of the run's programs (`protectedPlaces`); unless a pattern that names the
 *    protected part (`write: [".git/hooks/**"]`, `write: ["skills/**"]`, `write: ["lib/tools/x/**"]`
 *    for the skill folder `lib/tools/x`) lets it through; for reads, always, the credentials a
 *    checkout keeps (a git directory's config, `.git-credentials`: git-credentials.ts), which no
 *    pattern lets through;
 * 3. matched by the globs (picomatch, `!glob` excludes). Includes compare case by case, so `out/**`
 *    does not grant `OUT/` on a case-sensitive disk; excludes and protections ignore case, so a
 *    case-insensitive disk cannot be used to step around them.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import picomatch from "picomatch";
import { isGitCredentialPath, isGitDirectoryFolder } from "./git-credentials.js";
import { PROTECTED_PLACES, protectedPlaceOf } from "./protected-names.js";

export type Access = "read" | "write";

/** A protected part of a path (lower case), and the name a pattern must hold to let it through. */
type Protection = { readonly name: string; readonly matches: (part: string) => boolean };

/** The name of a protection no pattern lets through (a pattern holds no NUL). */
const ALWAYS = "\0";

const PROTECTED: Record<Access, readonly Protection[]> = {
  read: [
    { name: ".prose", matches: (part) => part === ".prose" },
    { name: ".env", matches: (part) => part.startsWith(".env") },
  ],
  write: [
    { name: ".git", matches: (part) => part === ".git" },
    { name: ".prose", matches: (part) => part === ".prose" },
    // What the next run trusts: programs (the running one, the ones it uses), their generated
    // modules, the lockfile and the vendored programs. An agent that edits them grants itself next time.
    { name: ".prose", matches: (part) => part.endsWith(".prose") },
    { name: ".prose.ts", matches: (part) => part.endsWith(".prose.ts") },
    { name: ".prose.js", matches: (part) => part.endsWith(".prose.js") },
    { name: "prose.lock", matches: (part) => part === "prose.lock" },
    { name: "prose_modules", matches: (part) => part === "prose_modules" },
    // The MCP servers and Agent Skills the next run starts and reads (an agent that writes .mcp.json
    // would give the next run a command of its choosing).
    { name: ".mcp.json", matches: (part) => part === ".mcp.json" },
  ],
};

/** `real` is where the path really leads: every existing link resolved, a dangling one's target included. */
export type PathVerdict =
  | { readonly ok: true; readonly real: string }
  | { readonly ok: false; readonly outside: boolean; readonly system?: boolean; readonly credentials?: boolean };

/** Kernel interfaces, not files: a process's streams and environment, devices. Never read or written. */
const SYSTEM_FOLDERS = ["/proc", "/dev", "/sys"];

/** Symlinks followed while resolving one path before it is refused (Linux's own limit is 40). */
const MAX_LINKS = 40;

export class PathRules {
  private readonly realCwd: string;
  private readonly allowed: (path: string) => boolean;
  private readonly unprotected = new Map<string, (path: string) => boolean>();

  constructor(
    private readonly cwd: string,
    private readonly patterns: readonly string[],
    private readonly access: Access,
    /** Where skills are read (`protectedPlaces`): protected from writes. */
    private readonly places: readonly string[] = PROTECTED_PLACES,
  ) {
    this.realCwd = realpathSync.native(cwd);
    this.allowed = matcher(patterns);
  }

  /** The verdict on `path` (relative to the working directory, or absolute). */
  judge(path: string): PathVerdict {
    const absolute = resolve(this.cwd, path);
    // An absolute path under the real working directory (what a descriptor's /proc link names) is asked there.
    const asked = escapes(relative(this.cwd, absolute))
      ? relative(this.realCwd, absolute)
      : relative(this.cwd, absolute);
    const real = realLocation(absolute);
    if (real === undefined || isSystemPath(real)) return { ok: false, outside: true, system: true };
    const actual = relative(this.realCwd, real);
    if (escapes(asked) || escapes(actual)) return { ok: false, outside: true };
    // Credentials a checkout keeps (git-credentials.ts): never read, whatever the globs say.
    if (
      this.access === "read" &&
      [asked, actual].some((path) => isGitCredentialPath(toPosix(path).toLowerCase().split("/")))
    )
      return { ok: false, outside: false, credentials: true };
    if (this.access === "read" && bareConfig(real)) return { ok: false, outside: false, credentials: true };
    return this.permits(toPosix(asked)) && this.permits(toPosix(actual))
      ? { ok: true, real }
      : { ok: false, outside: false };
  }

  private permits(path: string): boolean {
    const parts = path.toLowerCase().split("/");
    const protections = PROTECTED[this.access]
      .filter((protection) => parts.some(protection.matches))
      .map((protection) => protection.name);
    // The Agent Skills the next run reads: protected where they are read from, not by name anywhere.
    // A skill root is let through by a pattern that says `skills`; an imported skill's folder, by
    // one that names the folder; the working directory as a skill's folder, by none.
    const place = this.access === "write" ? protectedPlaceOf(path, this.places) : undefined;
    if (place !== undefined)
      protections.push(PROTECTED_PLACES.includes(place) ? "skills" : place === "." ? ALWAYS : place);
    if (protections.length === 0) return this.allowed(path);
    return protections.every((name) => this.namingPatterns(name)(path));
  }

  /** The patterns that name a protected part: the only ones that can let a protected path through. */
  private namingPatterns(name: string): (path: string) => boolean {
    let allowed = this.unprotected.get(name);
    if (allowed === undefined) {
      const naming = this.patterns.filter((pattern) => pattern.startsWith("!") || pattern.toLowerCase().includes(name));
      this.unprotected.set(name, (allowed = matcher(naming)));
    }
    return allowed;
  }
}

/** Whether `real` is the config of a git directory without `.git` in its name (a bare repository's, a worktree's). */
function bareConfig(real: string): boolean {
  const name = basename(real).toLowerCase();
  return (name === "config" || name === "config.worktree") && isGitDirectoryFolder(dirname(real));
}

/** A glob list where `!pattern` excludes; patterns are relative to the working directory. */
function matcher(patterns: readonly string[]): (path: string) => boolean {
  const normalize = (pattern: string): string => pattern.replace(/^\.\//, "");
  const include = patterns.filter((p) => !p.startsWith("!")).map(normalize);
  const exclude = patterns.filter((p) => p.startsWith("!")).map((p) => normalize(p.slice(1)));
  const included = include.length === 0 ? () => false : picomatch(include, { dot: true });
  const excluded = exclude.length === 0 ? () => false : picomatch(exclude, { dot: true, nocase: true });
  return (path) => (path === "." ? include.length > 0 : included(path) && !excluded(path));
}

/**
 * Where `path` really leads: its real path when it exists; else, when it is a symlink (dangling: its
 * target does not exist yet), where its target leads, since writing through the link would create
 * the target; else the real location of its parent joined with its name (a file not yet written).
 * Undefined when the links loop or go deeper than MAX_LINKS.
 */
export function realLocation(path: string, links = 0): string | undefined {
  if (links > MAX_LINKS) return undefined;
  try {
    return realpathSync.native(path);
  } catch {
    const target = linkTarget(path);
    if (target !== undefined) return realLocation(resolve(dirname(path), target), links + 1);
    const parent = dirname(path);
    if (parent === path) return path;
    const realParent = realLocation(parent, links);
    return realParent === undefined ? undefined : join(realParent, basename(path));
  }
}

/** Whether `path` (absolute, real) is under /proc, /dev or /sys. */
export function isSystemPath(path: string): boolean {
  return SYSTEM_FOLDERS.some((folder) => path === folder || path.startsWith(`${folder}/`));
}

function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function escapes(relativePath: string): boolean {
  return relativePath === ".." || relativePath.startsWith(`..${sep}`) || isAbsolute(relativePath);
}

function toPosix(path: string): string {
  return path.split(sep).join("/") || ".";
}
