/**
 * Temporary folders for tests. Every folder made here is removed when the test file that made it ends
 * (an `afterAll` hook that test/support/each-file.ts registers in every test file, run after the file's
 * own hooks have stopped what used it), so no test leaves one behind.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

/** Removes every folder `temporaryFolder` made so far. */
export function removeTemporaryFolders(): void {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
}

/** A new, empty folder `<temp folder>/<prefix>XXXXXX`, by its real path; removed when the test file ends. */
export function temporaryFolder(prefix = "prosec-"): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(folder);
  return folder;
}
