/**
 * The names a command may not create or move where it can write: a nested repository's `.git` (its
 * hooks run outside any sandbox the next time the user runs git there), `.prose/`, programs and their
 * modules, `prose.lock`, `prose_modules/`, `.mcp.json` anywhere (the nearest one above a program
 * chooses the servers its run starts), and the folders skills are read from, the working directory's
 * own `skills/` and `.claude/skills/` (a `src/skills/` is an ordinary folder) and the local skill
 * folders of the run's programs and of those they use (`protectedPlaces`). The sandbox binds the
 * ones that exist read-only (sandbox.ts); after each command its writable binds are walked again, and
 * what is new is removed.
 * An entry that was there before and moved (`mv sub sub2` carries a nested repository's `.git`) is
 * moved back when its old place is free, else reported, never deleted.
 */
import { lstatSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** A cheap first test: every protected name is `.git`, `.mcp.json`, `skills` or holds `prose` (any case). */
export const MAYBE_PROTECTED = /^\.git$|prose|^\.mcp\.json$|^skills$/i;

/** Whether an entry's name (lower case) is one a command may not create. */
export function isProtectedName(name: string): boolean {
  return (
    name === ".git" ||
    name === "prose.lock" ||
    name === "prose_modules" ||
    // The MCP servers the next run starts (skills are protected where they are read: isProtectedPlace).
    name === ".mcp.json" ||
    name.endsWith(".prose") ||
    name.endsWith(".prose.ts") ||
    name.endsWith(".prose.js")
  );
}

/** The folders skills are read from, relative to the working directory (DIALECT.md; tools/skills.ts). */
export const PROTECTED_PLACES: readonly string[] = ["skills", ".claude/skills"];

/**
 * PROTECTED_PLACES and `skillFolders`: the local skill folders of the run's programs, the running
 * one's and those it uses (`import "x" from "./folder"`; relative to the working directory, `/`-separated,
 * lower case; kernel/run-skills.ts). `.` (a skill folder that is the working directory) protects it all.
 */
export function protectedPlaces(skillFolders: readonly string[] = []): readonly string[] {
  return skillFolders.length === 0 ? PROTECTED_PLACES : [...PROTECTED_PLACES, ...skillFolders];
}

/**
 * The protected place `relative` (to the working directory, `/`-separated) is in or is, in any case
 * (a case-insensitive disk reads `Skills/` as `skills/`); undefined when none.
 */
export function protectedPlaceOf(relative: string, places = PROTECTED_PLACES): string | undefined {
  const lower = relative.toLowerCase();
  return places.find((place) => place === "." || lower === place || lower.startsWith(`${place}/`));
}

/** Whether the absolute `path` is one of `places` of the working directory `cwd`, in any case. */
export function isProtectedPlace(cwd: string, path: string, places = PROTECTED_PLACES): boolean {
  return path.startsWith(`${cwd}/`) && places.includes(path.slice(cwd.length + 1).toLowerCase());
}

/**
 * Whether `real` (a real path under the real working directory `realCwd`) is inside a folder whose
 * identity is one of the skill folders' (`identities`) though not at a place: a skill folder a
 * command moved (`mv lib/local-skills lib/moved`). At its place the path rules judge it (a `write:`
 * pattern naming the place lets the file tools in); a moved copy no pattern opens.
 */
export function inMovedPlace(
  real: string,
  realCwd: string,
  places: readonly string[],
  identities: ReadonlySet<string>,
): boolean {
  if (identities.size === 0 || !real.startsWith(`${realCwd}/`)) return false;
  if (protectedPlaceOf(real.slice(realCwd.length + 1), places) !== undefined) return false;
  for (let folder = dirname(real); folder.startsWith(`${realCwd}/`); folder = dirname(folder)) {
    const identity = identityOf(folder);
    if (identity !== undefined && identities.has(identity)) return true;
  }
  return false;
}

/**
 * The folders on the way to `places` from the working directory, the places included (`.claude`,
 * `.claude/skills`, `skills`): where a link would have the next run read skills from elsewhere.
 */
export function placeFolders(places = PROTECTED_PLACES): string[] {
  const folders = new Set<string>();
  for (const place of places) {
    const parts = place === "." ? [] : place.split("/");
    for (let end = 1; end <= parts.length; end++) folders.add(parts.slice(0, end).join("/"));
  }
  return [...folders];
}

/**
 * The links a command may not make where skills are read: a place or a folder on the way to it as a
 * link (`ln -s sub .claude` would have the next run read `sub/skills/`). Links there before the
 * command are remembered (sandbox.ts) and left alone.
 */
export function isPlaceLink(cwd: string, path: string, link: boolean, places = PROTECTED_PLACES): boolean {
  if (!link || !path.startsWith(`${cwd}/`)) return false;
  const relative = path.slice(cwd.length + 1).toLowerCase();
  return places.some((place) => place === relative || place.startsWith(`${relative}/`));
}

/**
 * Whether a folder holding these entries is a git directory to git (its `is_git_directory`): `HEAD`
 * with `objects/` and `refs/`, or with `commondir`. Such a folder needs no `.git` in its name: `git
 * status` run in it reads its `config` (`core.worktree = .`, `core.fsmonitor = <command>`) and runs
 * what it names, outside any sandbox. Its `HEAD` is protected as a `.git` is.
 */
export function isGitDirectory(names: ReadonlySet<string>): boolean {
  return names.has("HEAD") && ((names.has("objects") && names.has("refs")) || names.has("commondir"));
}

/**
 * Moves a protected entry back to where it was, when that place is free; the folders of it that are
 * gone (`mv sub sub2`) are made again below a real folder, never through a link.
 */
function moveBack(path: string, was: string): boolean {
  if (identityOf(was) !== undefined) return false;
  try {
    if (!madeFolder(dirname(was))) return false;
    renameSync(path, was);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `folder` is a real folder (no link on the way), made with the missing folders above it:
 * `mv lib lib2` takes away every folder between the working directory and `lib/local-skills/x`.
 */
function madeFolder(folder: string): boolean {
  if (lstatSync(folder, { throwIfNoEntry: false }) === undefined) {
    const parent = dirname(folder);
    if (parent === folder || !madeFolder(parent)) return false;
    mkdirSync(folder);
  }
  return lstatSync(folder).isDirectory() && realpathSync.native(folder) === folder;
}

/** `device:inode` of what `path` names itself (a link as a link), or undefined when it is missing. */
export function identityOf(path: string): string | undefined {
  let stat;
  try {
    stat = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  return stat === undefined ? undefined : `${stat.dev}:${stat.ino}`;
}

/** Linux's PATH_MAX: a longer path cannot be passed to lstat, readdir or rm. */
const PATH_LIMIT = 4096;

function shortened(path: string): string {
  return path.length > 200 ? `${path.slice(0, 60)}...${path.slice(-100)}` : path;
}

export interface ProtectedScan {
  /** The writable folders (absolute) the command could change. */
  readonly writable: readonly string[];
  /** Protected entries in them before the command: `device:inode` to path. */
  readonly before: ReadonlyMap<string, string>;
  /** The working directory: its own `.prose/` is the runtime's, never touched. */
  readonly cwd: string;
  /** Where skills are read (`protectedPlaces`); default PROTECTED_PLACES. */
  readonly places?: readonly string[];
}

/** Undoes what the command did to protected names; returns one line per entry removed, moved back or left. */
export function undoProtectedChanges(scan: ProtectedScan): string[] {
  const said: string[] = [];
  const shown = (path: string): string => relative(scan.cwd, path) || ".";
  const places = scan.places ?? PROTECTED_PLACES;
  // A place named by a skill import may have any name: those are looked for at every entry.
  const anyNamePlaces = places.length > PROTECTED_PLACES.length;
  // A place moved with its folder (`mv lib/local-skills lib/moved`) keeps its own name: looked for by it.
  const placeNames = new Set(places.map((place) => place.slice(place.lastIndexOf("/") + 1)));
  // The walk is never cut short: what a command made is all checked, however many entries (a cap
  // would let a command hide a hook behind enough files). A folder it cannot read (a path past
  // PATH_MAX, which the command can make with relative names) is reported, never passed in silence.
  const visit = (folder: string): void => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") unreadable(folder, code);
      return;
    }
    const gitDirectory = isGitDirectory(new Set(entries.map((entry) => entry.name)));
    for (const entry of entries) {
      const candidate = MAYBE_PROTECTED.test(entry.name);
      const path = `${folder}/${entry.name}`;
      if (path.length >= PATH_LIMIT) {
        unreadable(path, "ENAMETOOLONG");
        continue;
      }
      const special =
        (candidate && isProtectedName(entry.name.toLowerCase())) ||
        (gitDirectory && entry.name === "HEAD") ||
        (candidate && isProtectedPlace(scan.cwd, path)) ||
        ((candidate || placeNames.has(entry.name.toLowerCase())) && wasProtected(path)) ||
        (anyNamePlaces && isProtectedPlace(scan.cwd, path, places)) ||
        isPlaceLink(scan.cwd, path, entry.isSymbolicLink(), places);
      if (!special) {
        if (entry.isDirectory()) visit(path);
        continue;
      }
      if (path === join(scan.cwd, ".prose")) continue;
      const identity = identityOf(path);
      const was = identity === undefined ? undefined : scan.before.get(identity);
      if (was === path) continue;
      if (was === undefined) {
        try {
          rmSync(path, { recursive: true, force: true });
          said.push(
            entry.name === "HEAD"
              ? `removed ${shown(path)}: a command may not make a git repository (HEAD beside objects/ and refs/)`
              : `removed ${shown(path)}: a command may not create ${entry.name}`,
          );
        } catch (error) {
          said.push(
            `${shortened(shown(path))} was made by the command and could not be removed (${(error as NodeJS.ErrnoException).code ?? "error"}): remove it by hand (rm -rf) before running git or prosec there`,
          );
        }
      } else moves.push({ path, was, name: entry.name });
    }
  };
  // Moved back once the walk is done: what the command made at an old place is removed first, so
  // `mv lib/local-skills lib/aaa && mkdir -p lib/local-skills/x` cannot keep the real one away.
  const moves: Array<{ readonly path: string; readonly was: string; readonly name: string }> = [];
  // A protected folder moved elsewhere (`mv skills src/skills`) is found where it went, to move it back.
  const wasProtected = (path: string): boolean => {
    const identity = identityOf(path);
    return identity !== undefined && scan.before.has(identity);
  };
  let cut = 0;
  const unreadable = (path: string, code: string | undefined): void => {
    if (cut++ < 5)
      said.push(
        `${shortened(shown(path))} could not be checked for protected names (${code ?? "unreadable"}); remove it by hand (rm -rf) before running git or prosec there`,
      );
  };
  for (const root of scan.writable) visit(root);
  for (const { path, was, name } of moves)
    said.push(
      moveBack(path, was)
        ? `moved ${shown(path)} back to ${shown(was)}: a command may not move ${name}`
        : `${shown(was)} was moved to ${shown(path)}, and its old place is taken or gone: move it back by hand`,
    );
  if (cut > 5) said.push(`and ${cut - 5} more places that could not be checked`);
  return said;
}
