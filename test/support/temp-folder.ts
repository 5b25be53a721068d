/**
 * Tests leave nothing behind. This global setup points TMPDIR (which `os.tmpdir()` reads, in the test
 * workers and in every process they start) at a folder of this run's own, `prosec-tests-<pid>-XXXXXX`.
 * When the run ends, failed or not, it stops every server and process still running that a test started
 * (leftovers.ts finds them by that TMPDIR), removes the folder, and fails the run if a test left a
 * process running or anything in the folder: every test stops and removes what it made. A run that
 * never reached its end (killed) is cleaned up by the next one: its folder names its dead process.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopLeftovers } from "./leftovers.js";

const PREFIX = "prosec-tests-";

export default async function setup(): Promise<() => Promise<void>> {
  const parent = tmpdir();
  await removeDeadRuns(parent);
  const folder = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
  // Readable by others, as /tmp is: the tests' PostgreSQL server runs as the postgres user, inside it.
  chmodSync(folder, 0o755);
  const previous = process.env["TMPDIR"];
  process.env["TMPDIR"] = folder;
  return async () => {
    if (previous === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = previous;
    const running = await stopLeftovers(folder);
    const left = readdirSync(folder).sort();
    rmSync(folder, { recursive: true, force: true });
    // Vitest reports an error thrown here but still exits 0, so fail the run by its exit code.
    if (running.length > 0) {
      console.error(
        `\nTests left ${running.length === 1 ? "1 process" : `${running.length} processes`} running (each test must stop what it started), stopped now:\n${running.map(({ pid, command }) => `  ${pid} ${command}`).join("\n")}`,
      );
      process.exitCode = 1;
    }
    if (left.length > 0) {
      console.error(
        `\nTests left ${left.length === 1 ? "1 entry" : `${left.length} entries`} in the temp folder (each test must remove what it made): ${left.join(", ")}`,
      );
      process.exitCode = 1;
    }
  };
}

/** The folders of earlier runs whose process is gone (killed before their teardown): stopped and removed. */
async function removeDeadRuns(parent: string): Promise<void> {
  for (const name of readdirSync(parent)) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!pid || running(pid)) continue;
    const folder = join(parent, name);
    await stopLeftovers(folder);
    rmSync(folder, { recursive: true, force: true });
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
