import { renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { makeDirectory } from "../../runtime/stored-runs.js";

/**
 * Writes a file so that readers only ever see the old content or the whole new content: the text
 * goes to a temporary file in the same folder (same file system), which is then renamed over
 * the target. A failure removes the temporary file and leaves the target as it was.
 */
export function writeFileAtomically(path: string, content: string): void {
  const directory = dirname(path);
  makeDirectory(directory);
  const temporary = join(directory, `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, content, "utf8");
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
