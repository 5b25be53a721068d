/**
 * Which paths a session may read or write. A path is judged twice, as asked and at its real location
 * (symlinks followed, `..` resolved), relative to the working directory; both must pass:
 *
 * 1. inside the working directory, whatever the globs say;
 * 2. not protected: `.git` and `.prose` (for writes) and `.prose` and `.env*` (for reads), as any
 *    part of the path, in any case (`.GIT/config`, `sub/.git/config`), unless a pattern that names
 *    the protected part (`write: [".git/hooks/**"]`) lets it through;
 * 3. matched by the globs (picomatch, `!glob` excludes). Includes compare case by case, so `out/**`
 *    does not grant `OUT/` on a case-sensitive disk; excludes and protections ignore case, so a
 *    case-insensitive disk cannot be used to step around them.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import picomatch from "picomatch";

export type Access = "read" | "write";

const PROTECTED: Record<Access, readonly { readonly name: string; readonly matches: (part: string) => boolean }[]> = {
  read: [
    { name: ".prose", matches: (part) => part === ".prose" },
    { name: ".env", matches: (part) => part.startsWith(".env") },
  ],
  write: [
    { name: ".git", matches: (part) => part === ".git" },
    { name: ".prose", matches: (part) => part === ".prose" },
  ],
};

export type PathVerdict = { readonly ok: true } | { readonly ok: false; readonly outside: boolean };

export class PathRules {
  private readonly realCwd: string;
  private readonly allowed: (path: string) => boolean;
  private readonly unprotected = new Map<string, (path: string) => boolean>();

  constructor(
    private readonly cwd: string,
    private readonly patterns: readonly string[],
    private readonly access: Access,
  ) {
    this.realCwd = realpathSync.native(cwd);
    this.allowed = matcher(patterns);
  }

  /** The verdict on `path` (relative to the working directory, or absolute). */
  judge(path: string): PathVerdict {
    const absolute = resolve(this.cwd, path);
    const asked = relative(this.cwd, absolute);
    const actual = relative(this.realCwd, realLocation(absolute));
    if (escapes(asked) || escapes(actual)) return { ok: false, outside: true };
    return this.permits(toPosix(asked)) && this.permits(toPosix(actual)) ? { ok: true } : { ok: false, outside: false };
  }

  private permits(path: string): boolean {
    const parts = path.toLowerCase().split("/");
    const protections = PROTECTED[this.access].filter((protection) => parts.some(protection.matches));
    if (protections.length === 0) return this.allowed(path);
    return protections.every((protection) => this.namingPatterns(protection.name)(path));
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

/** A glob list where `!pattern` excludes; patterns are relative to the working directory. */
function matcher(patterns: readonly string[]): (path: string) => boolean {
  const normalize = (pattern: string): string => pattern.replace(/^\.\//, "");
  const include = patterns.filter((p) => !p.startsWith("!")).map(normalize);
  const exclude = patterns.filter((p) => p.startsWith("!")).map((p) => normalize(p.slice(1)));
  const included = include.length === 0 ? () => false : picomatch(include, { dot: true });
  const excluded = exclude.length === 0 ? () => false : picomatch(exclude, { dot: true, nocase: true });
  return (path) => (path === "." ? include.length > 0 : included(path) && !excluded(path));
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest (a file not yet written). */
function realLocation(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    return join(realLocation(parent), basename(path));
  }
}

function escapes(relativePath: string): boolean {
  return relativePath === ".." || relativePath.startsWith(`..${sep}`) || isAbsolute(relativePath);
}

function toPosix(path: string): string {
  return path.split(sep).join("/") || ".";
}
