/**
 * A newcomer's commands in a folder they cannot write (a checkout owned by another user, a shared
 * folder): each is the machine's problem (EXIT.environment, docs/cli.md), said with what was refused,
 * where, and what fixes a denied permission, never a full disk's remedy or a resume of nothing.
 * `build` said "cannot write m3.prose.ts (EACCES)" with the usage code, `examples copy` named the
 * bundled example it copies from as the file refused, and every one said "free space, ..., then resume".
 * As root (CI) the commands run as nobody in a root-owned folder; as another user, in a folder of
 * theirs made read-only.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { bin } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const NOBODY = 65534;
const root = process.getuid?.() === 0;
const folders: string[] = [];

afterEach(() => {
  // Writable again, so that the temp folder's removal can empty it.
  for (const folder of folders.splice(0)) chmodSync(folder, 0o755);
});

/** A folder holding `hello.prose` that the user the commands run as may read but not write. */
function unwritableFolder(): string {
  const folder = temporaryFolder("prosec-unwritable-");
  writeFileSync(join(folder, "hello.prose"), 'output answer = session "Hello"\n');
  chmodSync(folder, root ? 0o755 : 0o555);
  folders.push(folder);
  return folder;
}

function prosecIn(cwd: string, args: readonly string[]) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: "utf8",
    // No server is reached: the run stops before its first request.
    env: { ...process.env, NO_COLOR: "1", HOME: cwd, ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
    ...(root ? { uid: NOBODY, gid: NOBODY } : {}),
  });
}

const MACHINE = "This is a problem of the machine prosec runs on, not of prosec or the program";
const FIX = "make the folder writable for this user, or work in one that is";

describe("commands in a folder the user cannot write", () => {
  it("build says which module it could not write and how to fix it, exit 9", () => {
    const cwd = unwritableFolder();
    const result = prosecIn(cwd, ["build", "hello.prose"]);
    expect(result.status, result.stderr).toBe(EXIT.environment);
    expect(result.stderr).toBe(
      `prosec: Writing hello.prose.ts failed: permission denied (EACCES). ${MACHINE}: ${FIX}, then build again.\n`,
    );
    expect(readdirSync(cwd)).toEqual(["hello.prose"]);
  });

  it("examples copy names the file it could not write, not the example it copies from", () => {
    const cwd = unwritableFolder();
    const result = prosecIn(cwd, ["examples", "copy", "01-hello-world"]);
    expect(result.status, result.stderr).toBe(EXIT.environment);
    expect(result.stderr).toMatch(
      /^prosec: A file operation failed: permission denied \(EACCES\) \(\S+01-hello-world\.prose → 01-hello-world\.prose\)\. /,
    );
    expect(result.stderr).toContain(`${MACHINE}: ${FIX}, then run the command again.\n`);
  });

  it("init and run say to try again, not to resume what never started", () => {
    const cwd = unwritableFolder();
    const init = prosecIn(cwd, ["init"]);
    expect(init.status, init.stderr).toBe(EXIT.environment);
    expect(init.stderr).toContain(`(EACCES) (${join(cwd, "src")}). ${MACHINE}: ${FIX}, then run the command again.\n`);
    const run = prosecIn(cwd, ["run", "hello.prose"]);
    expect(run.status, run.stderr).toBe(EXIT.environment);
    expect(run.stderr).toContain(`(EACCES) (.prose). ${MACHINE}: ${FIX}, then run it again.\n`);
    expect(run.stderr).not.toMatch(/resume|free space|\n\s+at /);
    expect(readdirSync(cwd)).toEqual(["hello.prose"]);
  });
});
