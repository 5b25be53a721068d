/**
 * Writing `prose_modules/` and `prose.lock` together, or not at all. The new folder is assembled
 * beside the old one (a copy plus the new programs), then swapped in by renames; the lockfile is
 * renamed into place last. Any failure puts the old folder back and removes what was staged.
 */
import { cpSync, existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
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
