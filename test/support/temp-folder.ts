/**
 * Tests leave nothing behind. This global setup points TMPDIR (which `os.tmpdir()` reads, in the test
 * workers and in every process they start) at a folder of this run's own, and when the run ends
 * removes it and fails the run if a test left anything in it: every test removes what it made.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const folder = mkdtempSync(join(tmpdir(), "prosec-tests-"));
  // Readable by others, as /tmp is: the tests' PostgreSQL server runs as the postgres user, inside it.
  chmodSync(folder, 0o755);
  const previous = process.env["TMPDIR"];
  process.env["TMPDIR"] = folder;
  return () => {
    if (previous === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = previous;
    const left = readdirSync(folder).sort();
    rmSync(folder, { recursive: true, force: true });
    if (left.length === 0) return;
    // Vitest reports an error thrown here but still exits 0, so fail the run by its exit code.
    console.error(
      `\nTests left ${left.length === 1 ? "1 entry" : `${left.length} entries`} in the temp folder (each test must remove what it made): ${left.join(", ")}`,
    );
    process.exitCode = 1;
  };
}
