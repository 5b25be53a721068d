/**
 * `prose.lock`: every remote program a project uses, with where it came from and the SHA-256 of its
 * text. JSON, written with sorted keys so that it diffs well and is byte-identical for the same
 * programs: `{ lockfileVersion: 1, registry, programs: { "alice/research": { url, sha256, uses } } }`.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DEFAULT_REGISTRY, isLockfileKey } from "../references.js";
import { GIT_NATIVE_LOCKFILE_HINT } from "../diagnostics/messages.js";
import { jsonProblem } from "../../runtime/host.js";

export const LOCKFILE = "prose.lock";

export interface LockedProgram {
  readonly url: string;
  /** Of the program's bytes, hex. */
  readonly sha256: string;
  /** The lockfile keys of the remote programs it `use`s, sorted. */
  readonly uses: readonly string[];
}

export interface Lockfile {
  readonly lockfileVersion: 1;
  /** The registry base URL references resolved against (the project's registry setting). */
  readonly registry: string;
  readonly programs: { readonly [key: string]: LockedProgram };
}

/** A `prose.lock` that cannot be read: P034, or P042 for OpenProse's plaintext format, with what to do. */
export class LockfileError extends Error {
  constructor(
    message: string,
    readonly code: "P034" | "P042" = "P034",
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * Upstream OpenProse's git-native lockfile: `host/owner/repo sha` lines (`github.com/alice/tools 3f2a…`),
 * `#` comments and blank lines. prosec does not read it, and never overwrites it.
 */
export function isGitNativeLockfile(text: string): boolean {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  return lines.length > 0 && lines.every((line) => /^[\w.-]+(?:\/[\w.-]+){2,}\s+[0-9a-f]{7,64}$/i.test(line));
}

/** The nearest folder, from `start` up, that holds a `prose.lock`. */
export function findProjectRoot(start: string): string | undefined {
  for (let folder = start; ; folder = dirname(folder)) {
    if (existsSync(join(folder, LOCKFILE))) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}

/** The lockfile in `root`; an empty one when there is none. Throws LockfileError when it cannot be read. */
export function readLockfile(root: string): Lockfile {
  const path = join(root, LOCKFILE);
  if (!existsSync(path)) return { lockfileVersion: 1, registry: DEFAULT_REGISTRY, programs: {} };
  const text = readFileSync(path, "utf8");
  if (isGitNativeLockfile(text))
    throw new LockfileError(
      `${LOCKFILE} is OpenProse's git-native lockfile (\`host/owner/repo sha\` lines), which prosec does not read`,
      "P042",
      GIT_NATIVE_LOCKFILE_HINT,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new LockfileError(`${LOCKFILE} is not valid JSON (${jsonProblem(error)})`);
  }
  if (!isLockfile(parsed))
    throw new LockfileError(
      `${LOCKFILE} is not a version 1 lockfile ({ lockfileVersion: 1, registry, programs: { ref: { url, sha256, uses } } })`,
    );
  const strange = strangeKey(parsed);
  if (strange !== undefined)
    throw new LockfileError(
      `${LOCKFILE} records ${JSON.stringify(strange)}, which is neither a registry reference (handle/slug) nor an http(s) URL`,
    );
  return parsed;
}

/** A key or `uses` entry no `use` could have written: it could name a file outside `prose_modules/`. */
function strangeKey(lockfile: Lockfile): string | undefined {
  for (const [key, entry] of Object.entries(lockfile.programs)) {
    if (!isLockfileKey(key)) return key;
    const use = entry.uses.find((used) => !isLockfileKey(used));
    if (use !== undefined) return use;
  }
  return undefined;
}

/** The lockfile's text: keys sorted, two-space indentation, a final newline. */
export function lockfileText(lockfile: Lockfile): string {
  const programs = Object.fromEntries(
    Object.keys(lockfile.programs)
      .sort()
      .map((key) => {
        const { url, sha256, uses } = lockfile.programs[key]!;
        return [key, { url, sha256, uses: [...uses].sort() }];
      }),
  );
  return `${JSON.stringify({ lockfileVersion: 1, registry: lockfile.registry, programs }, null, 2)}\n`;
}

function isLockfile(value: unknown): value is Lockfile {
  if (typeof value !== "object" || value === null) return false;
  const { lockfileVersion, registry, programs } = value as Record<string, unknown>;
  if (lockfileVersion !== 1 || typeof registry !== "string" || typeof programs !== "object" || programs === null)
    return false;
  return Object.values(programs).every((entry: unknown) => {
    if (typeof entry !== "object" || entry === null) return false;
    const { url, sha256, uses } = entry as Record<string, unknown>;
    return (
      typeof url === "string" &&
      typeof sha256 === "string" &&
      /^[0-9a-f]{64}$/.test(sha256) &&
      Array.isArray(uses) &&
      uses.every((use) => typeof use === "string")
    );
  });
}
