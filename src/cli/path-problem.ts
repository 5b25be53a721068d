/**
 * A path in the way of what a command writes: a file where prosec makes a folder (`.prose`, `tests`,
 * the folder `examples copy` was given), a folder an output goes into that does not exist (`view --out
 * nodir/x.html`). The user's folder, not prosec's bug: said as a usage error with what to change.
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";

/** The message for `error` when it is such a path problem; undefined for anything else. */
export function pathProblem(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  if (typeof path !== "string") return undefined;
  // An atomic write's temporary file (`x.html.4242.tmp`) stands for the file the user named.
  const shown = path.replace(/\.\d+\.tmp$/, "");
  if (code === "EEXIST" && syscall === "mkdir")
    return `${shown} is a file, not a folder: prosec makes a folder there; move the file away, then run the command again`;
  if (code === "ENOTDIR")
    return `${shown}: a part of this path is a file, not a folder (ENOTDIR): name another path, or move the file away`;
  if (code === "EISDIR") return `${shown} is a folder, not a file (EISDIR): name a file`;
  if (code === "ENOENT" && !existsSync(dirname(path)))
    return `${shown}: the folder ${dirname(shown)} does not exist (ENOENT): make it first, or name another`;
  return undefined;
}
