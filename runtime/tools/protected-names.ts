/**
 * The names a command may not create or move where it can write: a nested repository's `.git` (its
 * hooks run outside any sandbox the next time the user runs git there), `.prose/`, programs and their
 * modules, `prose.lock`, `prose_modules/`, and `.mcp.json` and `skills/` (a command that wrote them
 * would choose the servers the next run starts and the skills it reads). The sandbox binds the ones that exist read-only
 * (sandbox.ts); after each command its writable binds are walked again, and what is new is removed.
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
    // The MCP servers and Agent Skills the next run starts and reads (`skills` covers `.claude/skills`).
    name === ".mcp.json" ||
    name === "skills" ||
    name.endsWith(".prose") ||
    name.endsWith(".prose.ts") ||
    name.endsWith(".prose.js")
  );
}

/**
 * Moves a protected entry back to where it was, when that place is free; a folder of it that is gone
 * (`mv sub sub2`) is made again when its own parent is a real folder, not a link.
 */
function moveBack(path: string, was: string): boolean {
  if (identityOf(was) !== undefined) return false;
  const folder = dirname(was);
  try {
    if (lstatSync(folder, { throwIfNoEntry: false }) === undefined) {
      if (lstatSync(dirname(folder), { throwIfNoEntry: false })?.isDirectory() !== true) return false;
      mkdirSync(folder);
    }
    if (!lstatSync(folder).isDirectory() || realpathSync.native(folder) !== folder) return false;
    renameSync(path, was);
    return true;
  } catch {
    return false;
  }
}

/** `device:inode` of what `path` names itself (a link as a link), or undefined when it is missing. */
export function identityOf(path: string): string | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat === undefined ? undefined : `${stat.dev}:${stat.ino}`;
}

export interface ProtectedScan {
  /** The writable folders (absolute) the command could change. */
  readonly writable: readonly string[];
  /** Protected entries in them before the command: `device:inode` to path. */
  readonly before: ReadonlyMap<string, string>;
  /** The working directory: its own `.prose/` is the runtime's, never touched. */
  readonly cwd: string;
  readonly maxWalked: number;
}

/** Undoes what the command did to protected names; returns one line per entry removed, moved back or left. */
export function undoProtectedChanges(scan: ProtectedScan): string[] {
  const said: string[] = [];
  const shown = (path: string): string => relative(scan.cwd, path) || ".";
  const walk = { count: 0 };
  const visit = (folder: string): void => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    walk.count += entries.length;
    if (walk.count > scan.maxWalked) return;
    for (const entry of entries) {
      const special = MAYBE_PROTECTED.test(entry.name) && isProtectedName(entry.name.toLowerCase());
      if (!special) {
        if (entry.isDirectory()) visit(`${folder}/${entry.name}`);
        continue;
      }
      const path = `${folder}/${entry.name}`;
      if (path === join(scan.cwd, ".prose")) continue;
      const identity = identityOf(path);
      const was = identity === undefined ? undefined : scan.before.get(identity);
      if (was === path) continue;
      if (was === undefined) {
        rmSync(path, { recursive: true, force: true });
        said.push(`removed ${shown(path)}: a command may not create ${entry.name}`);
      } else if (moveBack(path, was)) {
        said.push(`moved ${shown(path)} back to ${shown(was)}: a command may not move ${entry.name}`);
      } else {
        said.push(
          `${shown(was)} was moved to ${shown(path)}, and its old place is taken or gone: move it back by hand`,
        );
      }
    }
  };
  for (const root of scan.writable) visit(root);
  if (walk.count > scan.maxWalked)
    said.push(`more than ${scan.maxWalked} entries: protected names past them were not checked`);
  return said;
}
