/**
 * Writing `prose_modules/` and `prose.lock` together, or not at all. The new folder is assembled
 * beside the old one (a copy plus the new programs), then swapped in by renames; the lockfile is
 * renamed into place last. Any failure puts the old folder back and removes what was staged.
 *
 * A `prose_modules/` holding a link is refused before anything is written: the copy keeps the link,
 * and a program written through it (`alice` linked to `/home/me/.config`) would land where it leads.
 */
import { cpSync, existsSync, lstatSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { makeDirectory } from "../../runtime/stored-runs.js";
import { UsageError } from "../errors.js";
import { lockfileText, LOCKFILE, type Lockfile } from "../project/lockfile.js";
import { VENDOR_FOLDER, vendoredPath } from "../references.js";

export interface VendoredProgram {
  readonly key: string;
  readonly bytes: Uint8Array;
}

export function writeVendored(root: string, lockfile: Lockfile, programs: Iterable<VendoredProgram>): void {
  const folder = join(root, VENDOR_FOLDER);
  const staging = join(root, `.${VENDOR_FOLDER}.${process.pid}.new`);
  const previous = join(root, `.${VENDOR_FOLDER}.${process.pid}.old`);
  const stagedLock = join(root, `.${LOCKFILE}.${process.pid}.new`);
  const link = firstLink(folder);
  if (link !== undefined)
    throw new UsageError(
      `${join(VENDOR_FOLDER, relative(folder, link)).split(sep).join("/")} is a link: prosec writes programs into ${VENDOR_FOLDER}/ only as files of its own; remove the link and run the command again`,
    );
  let swapped = false;
  try {
    rmSync(staging, { recursive: true, force: true });
    if (existsSync(folder)) cpSync(folder, staging, { recursive: true });
    else makeDirectory(staging);
    for (const program of programs) {
      const path = join(staging, vendoredPath(program.key));
      makeDirectory(dirname(path));
      writeFileSync(path, program.bytes);
    }
    writeFileSync(stagedLock, lockfileText(lockfile), "utf8");
    if (existsSync(folder)) {
      renameSync(folder, previous);
      swapped = true;
    }
    renameSync(staging, folder);
    try {
      renameSync(stagedLock, join(root, LOCKFILE));
    } catch (error) {
      renameSync(folder, staging);
      throw error;
    }
  } catch (error) {
    if (swapped && !existsSync(folder)) renameSync(previous, folder);
    rmSync(staging, { recursive: true, force: true });
    rmSync(stagedLock, { force: true });
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`cannot write ${VENDOR_FOLDER}/ and ${LOCKFILE} in ${root} (${reason}); nothing was changed`);
  }
  rmSync(previous, { recursive: true, force: true });
}

/** The first link at or under `path`, if any. */
function firstLink(path: string): string | undefined {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return undefined;
  }
  if (stats.isSymbolicLink()) return path;
  if (!stats.isDirectory()) return undefined;
  for (const name of readdirSync(path).sort()) {
    const found = firstLink(join(path, name));
    if (found !== undefined) return found;
  }
  return undefined;
}
