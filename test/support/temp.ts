/**
 * Temporary folders for tests. Every folder made here is removed when the test file that made it ends
 * (an `afterAll` hook this module registers in each test file that imports it, run after the file's own
 * hooks have stopped what used it), so no test leaves one behind.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];

afterAll(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A new, empty folder `<temp folder>/<prefix>XXXXXX`, by its real path; removed when the test file ends. */
export function temporaryFolder(prefix = "prosec-"): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(folder);
  return folder;
}
