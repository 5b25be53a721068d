/**
 * A run id not found in this folder's `.prose/runs` may be a run started from a folder above: each
 * `prosec run` keeps its state under the folder it was started from (docs/run-folder.md), so a command
 * given from a project's `src/` finds none of its runs. Saying where the run is, and from where to
 * give the command, beats "no such run".
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { runsFolder } from "./folder-list.js";

/** The nearest folder above `cwd` whose `.prose/runs` holds `runId`; undefined when none does. */
export function folderAboveWithRun(cwd: string, runId: string): string | undefined {
  if (!/^[\w.-]{1,100}$/.test(runId) || /^\.\.?$/.test(runId)) return undefined;
  for (let folder = dirname(cwd); ; folder = dirname(folder)) {
    if (existsSync(join(runsFolder(folder), runId))) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}

/** `message`, with where the run is when a folder above holds it. */
export function withRunAbove(message: string, cwd: string, runId: string): string {
  const above = folderAboveWithRun(cwd, runId);
  return above === undefined
    ? message
    : `${message}; ${join(above, ".prose", "runs")} has it: give the command from ${above}`;
}
