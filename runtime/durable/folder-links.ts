/**
 * A run folder prosec writes into holds no symbolic link. Its files are written by name (the journal
 * and the trace appended, `program.prose`, `bindings/<name>.md`, the `cancelled` mark), and a write
 * through a link lands where the link leads: a run folder from someone else (an archive, a shared
 * folder) with `journal.jsonl` linked to `~/.bashrc` or `bindings/` to another project would have
 * `--resume`, `prosec answer` or `cancel` append to or overwrite files outside the project.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { RunStateError } from "../errors.js";

/** Refuses `dir` when it, or anything under it, is a symbolic link; a folder not there yet passes. */
export function refuseLinks(dir: string): void {
  const link = linkIn(dir);
  if (link !== undefined)
    throw new RunStateError(
      `The run folder ${dir} holds a symbolic link, ${JSON.stringify(link)}: prosec writes into a run folder by name, so a write would land where the link leads. Remove the link, or start a new run.`,
    );
}

function linkIn(path: string): string | undefined {
  try {
    if (lstatSync(path).isSymbolicLink()) return path;
  } catch {
    return undefined;
  }
  const walk = (folder: string): string | undefined => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const child = join(folder, entry.name);
      if (entry.isSymbolicLink()) return child;
      if (entry.isDirectory()) {
        const found = walk(child);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return lstatSync(path).isDirectory() ? walk(path) : undefined;
}
