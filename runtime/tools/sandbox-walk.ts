/**
 * The walk that finds, in what a command's sandbox binds, the paths it hides (`.env*`, `.prose/`) and
 * the protected ones it binds read-only (protected-names.ts); sandbox.ts builds the binds from it.
 */
import { readdirSync } from "node:fs";
import { gitConfigFiles, isGhHosts } from "./git-credentials.js";
import { identityOf, isGitDirectory, isProtectedName, isProtectedPlace, MAYBE_PROTECTED } from "./protected-names.js";

/** Linux's PATH_MAX: a longer path cannot be passed to lstat, readdir or bwrap. */
const PATH_MAX = 4096;
/** A name that may be hidden or protected (`.env*`, `.git*`, `hosts.yml`, and protected-names.ts's). */
const MAYBE_SPECIAL = new RegExp(`^\\.(env|git)|^hosts\\.yml$|${MAYBE_PROTECTED.source}`, "i");
/** What of a git directory git runs or that makes it one. */
const GIT_DIRECTORY_CODE = new Set(["HEAD", "config", "hooks", "commondir"]);

export interface Walk {
  /** The real working directory: where the protected places are (protected-names.ts). */
  readonly cwd: string;
  /** Where skills are read (`protectedPlaces`; default PROTECTED_PLACES). */
  readonly places?: readonly string[];
  /** The skill folders' identities (`runSkillIdentities`): such a folder is bound read-only wherever it is. */
  readonly identities?: ReadonlySet<string> | undefined;
  count: number;
  readonly limit: number;
  /** The configs of the git directories met (git-credentials.ts): covered by a redacted copy. */
  readonly gitConfigs?: Set<string>;
  /** A folder the walk could not read (its path past PATH_MAX, no permission), and why. */
  unreadable?: string;
  why?: string;
}

/**
 * Protected (read-only) and hidden paths under `folder`; false when the walk passes its limit or
 * meets a folder it cannot read: what such a folder holds is not known, so nothing is hidden there
 * (a `.env` moved past PATH_MAX, or into a folder made unreadable, would be shown), and the command
 * is refused. Only a folder gone since its parent was read (ENOENT, ENOTDIR) is passed over.
 */
export function collect(folder: string, readOnly: string[], hidden: Set<string>, walk: Walk): boolean {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return true;
    walk.unreadable = folder.length > 200 ? `${folder.slice(0, 120)}...${folder.slice(-60)}` : folder;
    walk.why = code ?? String(error);
    return false;
  }
  walk.count += entries.length;
  if (walk.count > walk.limit) return false;
  // A git directory without `.git` in its name (a bare repository): what git reads of it as code
  // (`config`, `hooks/`) and what makes it one (`HEAD`, `commondir`) are protected as a `.git` is.
  // The walk goes on: what else the folder holds is hidden and protected as anywhere.
  if (isGitDirectory(new Set(entries.map((entry) => entry.name)))) {
    for (const file of gitConfigFiles(folder)) walk.gitConfigs?.add(file);
    for (const entry of entries)
      if (GIT_DIRECTORY_CODE.has(entry.name) && !entry.isSymbolicLink()) readOnly.push(`${folder}/${entry.name}`);
  }
  for (const entry of entries) {
    // Most entries are neither hidden nor protected nor folders: no path is built, no case folded.
    const folderEntry = entry.isDirectory();
    if (!folderEntry && !MAYBE_SPECIAL.test(entry.name)) continue;
    if (entry.isSymbolicLink()) continue;
    const path = `${folder}/${entry.name}`;
    if (path.length >= PATH_MAX) {
      walk.unreadable = `${path.slice(0, 120)}...${path.slice(-60)}`;
      walk.why = "its path is longer than the system's limit";
      return false;
    }
    const name = entry.name.toLowerCase();
    if (name.startsWith(".env") || name === ".prose") hidden.add(path);
    else if (name.startsWith(".git-credentials") || isGhHosts(path.toLowerCase().split("/"))) hidden.add(path);
    else if (
      isProtectedName(name) ||
      isProtectedPlace(walk.cwd, path, walk.places) ||
      movedPlace(path, folderEntry, walk)
    ) {
      readOnly.push(path);
      if (name === ".git" && folderEntry) gitConfigs(path, walk);
    } else if (folderEntry && !collect(path, readOnly, hidden, walk)) return false;
  }
  return true;
}

/** Whether the folder `path` is a skill folder another command moved here (its identity is one's). */
function movedPlace(path: string, folderEntry: boolean, walk: Walk): boolean {
  if (!folderEntry || walk.identities === undefined || walk.identities.size === 0) return false;
  const identity = identityOf(path);
  return identity !== undefined && walk.identities.has(identity);
}

/** The configs of the `.git` folder `path` (not walked: protected as a whole). */
function gitConfigs(path: string, walk: Walk): void {
  for (const file of gitConfigFiles(path)) walk.gitConfigs?.add(file);
}
