/**
 * What earlier builds leave behind, through the real CLI: the module of a program deleted since (in
 * the named folder, or in `--out-dir`), and the temporary file of a build killed between its write
 * and its rename. A later build removes both, and nothing that prosec did not write.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

/** The pid of a process that has ended. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

describe("prosec build tidies its outputs", () => {
  it("removes the module of a deleted program, next to it or under --out-dir, and keeps files it did not write", () => {
    const project = temporaryFolder("prosec-leftovers-");
    mkdirSync(join(project, "flows", "deep"), { recursive: true });
    writeFileSync(join(project, "flows", "a.prose"), 'session "A"\n');
    writeFileSync(join(project, "flows", "deep", "b.prose"), 'session "B"\n');
    writeFileSync(join(project, "flows", "mine.prose.ts"), "// written by hand\n");
    expect(prosec(["build", "flows"], project).status).toBe(EXIT.ok);
    expect(prosec(["build", "flows", "--out-dir", "gen"], project).status).toBe(EXIT.ok);
    expect(existsSync(join(project, "gen", "deep", "b.prose.ts"))).toBe(true);

    spawnSync("rm", [join(project, "flows", "deep", "b.prose")]);
    const next = prosec(["build", "flows"], project);
    expect(next.status, next.stderr).toBe(EXIT.ok);
    expect(next.stdout).toContain("removed: flows/deep/b.prose.ts (its program is gone)");
    expect(next.stdout).toContain("1 program: 0 written, 1 unchanged, 1 removed");
    expect(existsSync(join(project, "flows", "deep", "b.prose.ts"))).toBe(false);
    expect(existsSync(join(project, "flows", "mine.prose.ts"))).toBe(true);
    expect(existsSync(join(project, "flows", "a.prose.ts"))).toBe(true);

    const out = prosec(["build", "flows", "--out-dir", "gen"], project);
    expect(out.stdout).toContain("removed: gen/deep/b.prose.ts (its program is gone)");
    expect(existsSync(join(project, "gen", "deep", "b.prose.ts"))).toBe(false);
    expect(existsSync(join(project, "gen", "a.prose.ts"))).toBe(true);

    // --check writes nothing, and removes nothing.
    writeFileSync(join(project, "flows", "c.prose"), 'session "C"\n');
    expect(prosec(["build", "flows"], project).status).toBe(EXIT.ok);
    spawnSync("rm", [join(project, "flows", "c.prose")]);
    prosec(["build", "flows", "--check"], project);
    expect(existsSync(join(project, "flows", "c.prose.ts"))).toBe(true);
  });

  it("removes a killed build's temporary files, and leaves a running build's", () => {
    const project = temporaryFolder("prosec-leftovers-");
    writeFileSync(join(project, "a.prose"), 'session "A"\n');
    expect(prosec(["build", "a.prose"], project).status).toBe(EXIT.ok);
    const killed = join(project, `.a.prose.ts.${deadPid()}.tmp`);
    const running = join(project, `.a.prose.ts.${process.pid}.tmp`);
    writeFileSync(killed, "half a mod");
    writeFileSync(running, "half a mod");
    const again = prosec(["build", "a.prose"], project);
    expect(again.status, again.stderr).toBe(EXIT.ok);
    expect(again.stdout).toContain("1 program: 0 written, 1 unchanged");
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(running)).toBe(true);
  });
});
