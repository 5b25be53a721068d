/**
 * A run folder prosec writes into holds no symbolic link. Its files are written by name (the journal
 * and the trace appended, `program.prose`, `bindings/<name>.md`, the `cancelled` mark), and a write
 * through a link lands where the link leads: a run folder from someone else (an archive, a shared
 * folder) with `journal.jsonl` linked to `~/.bashrc` or `bindings/` to another project would have
 * `--resume`, `prosec answer` or `cancel` append to or overwrite files outside the project.
 *
 * Nor does it hold a FIFO, a socket or a device: reading a FIFO blocks until something writes to it,
 * and a device (`/dev/zero`, made with mknod) never ends, so `runs show`, `--resume`, `answer`,
 * `approve` or `cancel` would hang on it. Such a folder is refused before anything in it is read;
 * each file is read through runtime/durable/run-file.ts besides, so nothing swapped in meanwhile blocks.
 */
import { lstatSync, readdirSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { RunStateError } from "../errors.js";

/**
 * Refuses `dir` when it, or anything under it, is a symbolic link, a FIFO, a socket or a device; a
 * folder not there yet passes.
 */
export function refuseLinks(dir: string): void {
  const odd = oddEntryIn(dir);
  if (odd === undefined) return;
  if (odd.kind === "symbolic link")
    throw new RunStateError(
      `The run folder ${dir} holds a symbolic link, ${JSON.stringify(odd.path)}: prosec writes into a run folder by name, so a write would land where the link leads. Remove the link, or start a new run.`,
    );
  throw new RunStateError(
    `The run folder ${dir} holds ${odd.kind}, ${JSON.stringify(odd.path)}, not a regular file: reading it could block forever or never end. Remove it, or start a new run.`,
  );
}

/** The first entry of `dir` (or `dir` itself) that is neither a regular file nor a folder, and what it is. */
export function oddEntryIn(path: string): { readonly path: string; readonly kind: string } | undefined {
  try {
    if (lstatSync(path).isSymbolicLink()) return { path, kind: "symbolic link" };
  } catch {
    return undefined;
  }
  const walk = (folder: string): { path: string; kind: string } | undefined => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const child = join(folder, entry.name);
      if (entry.isDirectory()) {
        const found = walk(child);
        if (found !== undefined) return found;
      } else if (!entry.isFile()) return { path: child, kind: kindOf(entry) };
    }
    return undefined;
  };
  return lstatSync(path).isDirectory() ? walk(path) : undefined;
}

function kindOf(entry: Dirent): string {
  if (entry.isSymbolicLink()) return "symbolic link";
  if (entry.isFIFO()) return "a FIFO (named pipe)";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return "a device";
  return "an entry of unknown kind";
}
