/**
 * Temporary files a killed process left behind. An atomic replace (files.ts) writes
 * `<file>.<pid>.tmp`, `<file>.<pid>.<random>.tmp` or `.<file>.<pid>.tmp` beside its target, then
 * renames it over the target; a process killed in between leaves it there. A resumed run removes
 * those of its folder, and a run those of a persistent agent's memory folder before it first writes
 * there, so crashes do not pile them up in folders that live on (`persist: project`, `user`).
 * Only files of a process that is no longer running are removed: a live one may be writing its own.
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "./run-lock.js";

const TEMPORARY = /^\.?(.+?)\.(\d+)(?:\.[0-9a-z]+)?\.tmp$/;
/** Linux's highest pid_max: a larger number in a name is not a pid. */
const PID_MAX = 4_194_304;

/**
 * Removes the stale temporary files in `folder` whose target's name `targets` accepts (every one by
 * default) and, with `nested`, in the folders under it (links are not followed).
 */
export function removeStaleTemporaries(
  folder: string,
  nested: boolean,
  targets: (name: string) => boolean = () => true,
): void {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return; // Not there (yet), or not a folder: nothing was left in it.
  }
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (nested) removeStaleTemporaries(join(folder, entry.name), true, targets);
      continue;
    }
    const found = TEMPORARY.exec(entry.name);
    const pid = Number(found?.[2]);
    if (!entry.isFile() || found === null || !targets(found[1]!) || pid === 0 || pid > PID_MAX) continue;
    if (pid !== process.pid && !isAlive(pid)) rmSync(join(folder, entry.name), { force: true });
  }
}
