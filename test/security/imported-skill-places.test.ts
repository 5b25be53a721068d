/**
 * The local skill folders of a run's programs as protected places (kernel/run-skills.ts,
 * tools/protected-names.ts): found in the program and every program it uses, as written and where
 * they really are; only a `write:` pattern naming the folder lets the file tools in; a skill whose
 * folder is the working directory leaves nothing writable, to the file tools or to commands.
 */
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runSkillIdentities, runSkillPlaces } from "../../runtime/kernel/run-skills.js";
import { runCommandTool, writeFileTool } from "../../runtime/tools/builtin.js";
import { PermissionGuard } from "../../runtime/tools/permissions.js";
import type { Permissions, ProgramInfo } from "../../runtime/types.js";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { temporaryFolder } from "../runtime/helpers.js";

beforeAll(() => {
  ensureBubblewrap();
});

const info = (name: string, extra: Partial<ProgramInfo>): ProgramInfo => ({
  name,
  source: `${name}.prose`,
  sourceHash: "0".repeat(64),
  compilerVersion: "0.0.0",
  inputs: [],
  outputs: [],
  ...extra,
});

function contextOf(cwd: string, places: readonly string[], permissions: Permissions) {
  const guard = new PermissionGuard(cwd, permissions, undefined, undefined, { places });
  return { cwd, signal: new AbortController().signal, permissions: guard };
}

async function write(cwd: string, places: readonly string[], path: string, permissions: Permissions) {
  return Promise.resolve(writeFileTool.run({ path, content: "x" }, contextOf(cwd, places, permissions))).then(
    () => "ok",
    (error: Error) => error.message,
  );
}

describe("a run's local skill folders", () => {
  it("are those of the program and of every program it uses, as written and where they really are", () => {
    const cwd = temporaryFolder("prosec-skill-places-");
    mkdirSync(join(cwd, "shared", "Tools", "x"), { recursive: true });
    symlinkSync("shared", join(cwd, "lib"));
    const deepest = info("deepest", { skillFolders: { z: "lib/deep/../Tools/x/" } });
    const helper = info("helper", { skillFolders: { y: "lib/Tools/x", outside: "../elsewhere/y" }, uses: { deepest } });
    const main = info("main", { skillFolders: { w: "local-skills/w" }, uses: { helper, again: helper } });
    expect(runSkillPlaces(main, cwd)).toEqual([
      "skills",
      ".claude/skills",
      "local-skills/w",
      "lib/tools/x",
      "shared/tools/x",
    ]);
  });

  it("are written only where a write: pattern names the folder", async () => {
    const cwd = temporaryFolder("prosec-skill-places-");
    const places = runSkillPlaces(info("main", { skillFolders: { y: "lib/tools/y" } }), cwd);
    expect(await write(cwd, places, "lib/tools/y/SKILL.md", { write: ["lib/**"] })).toMatch(/not permitted/);
    expect(await write(cwd, places, "lib/tools/y/SKILL.md", { write: ["**"] })).toMatch(/not permitted/);
    expect(await write(cwd, places, "lib/tools/y/SKILL.md", { write: ["lib/tools/y/**"] })).toBe("ok");
    expect(await write(cwd, places, "lib/tools/yz.md", { write: ["lib/**"] })).toBe("ok");
  });

  it("leave nothing writable when a skill's folder is the working directory", async () => {
    const cwd = temporaryFolder("prosec-skill-places-");
    writeFileSync(join(cwd, "SKILL.md"), "---\nname: root\ndescription: d\n---\n");
    const places = runSkillPlaces(info("main", { skillFolders: { root: "." } }), cwd);
    expect(await write(cwd, places, "notes.md", { write: ["**"] })).toMatch(/not permitted/);
    const output = await Promise.resolve(
      runCommandTool.run({ command: "echo x > SKILL.md" }, contextOf(cwd, places, { bash: "allow" })),
    );
    expect(output).toMatch(/Read-only file system/);
  });

  it("are moved back when a command moves them away and makes its own in their place", async () => {
    // Whichever the walk meets first, the copy made at the old place or the moved folder, the real
    // skill ends where it was: the made copy is removed, then the moved one comes back.
    for (const away of ["aaa", "zzz", "m1", "m2"]) {
      const cwd = temporaryFolder("prosec-skill-places-");
      mkdirSync(join(cwd, "lib", "local-skills", "reviewer"), { recursive: true });
      writeFileSync(join(cwd, "lib", "local-skills", "reviewer", "SKILL.md"), "the skill");
      const places = runSkillPlaces(info("main", { skillFolders: { reviewer: "lib/local-skills/reviewer" } }), cwd);
      const command = `mv lib/local-skills lib/${away} && mkdir -p lib/local-skills/reviewer && echo PWNED > lib/local-skills/reviewer/SKILL.md`;
      const report = await Promise.resolve(
        runCommandTool.run({ command }, contextOf(cwd, places, { write: ["lib/**"], bash: "allow" })),
      ).then(
        () => "no report",
        (error: Error) => error.message,
      );
      expect(report).toContain("removed lib/local-skills/reviewer");
      expect(report).toContain(`moved lib/${away}/reviewer back to lib/local-skills/reviewer`);
      expect(readFileSync(join(cwd, "lib", "local-skills", "reviewer", "SKILL.md"), "utf8")).toBe("the skill");
    }
  });

  it("are moved back when a command moves a folder above them, the folders between made again", async () => {
    const cwd = temporaryFolder("prosec-skill-places-");
    mkdirSync(join(cwd, "lib", "local-skills", "reviewer"), { recursive: true });
    writeFileSync(join(cwd, "lib", "local-skills", "reviewer", "SKILL.md"), "the skill");
    const places = runSkillPlaces(info("main", { skillFolders: { reviewer: "lib/local-skills/reviewer" } }), cwd);
    const report = await Promise.resolve(
      runCommandTool.run({ command: "mv lib moved" }, contextOf(cwd, places, { write: ["**"], bash: "allow" })),
    ).then(
      () => "no report",
      (error: Error) => error.message,
    );
    expect(report).toContain("moved moved/local-skills/reviewer back to lib/local-skills/reviewer");
    expect(readFileSync(join(cwd, "lib", "local-skills", "reviewer", "SKILL.md"), "utf8")).toBe("the skill");
  });

  it("stay closed to the file tools and commands where a command moved them and could not be moved back", async () => {
    const cwd = temporaryFolder("prosec-skill-places-");
    mkdirSync(join(cwd, "lib", "local-skills", "reviewer"), { recursive: true });
    writeFileSync(join(cwd, "lib", "local-skills", "reviewer", "SKILL.md"), "the skill");
    const program = info("main", { skillFolders: { reviewer: "lib/local-skills/reviewer" } });
    const places = runSkillPlaces(program, cwd);
    const placeIdentities = runSkillIdentities(program, cwd);
    const permissions = { write: ["lib/**"], bash: "allow" } as const;
    const guard = new PermissionGuard(cwd, permissions, undefined, undefined, { places, placeIdentities });
    const context = { cwd, signal: new AbortController().signal, permissions: guard };
    // A file where the folder was: the move cannot be undone, and is reported.
    const report = await Promise.resolve(
      runCommandTool.run({ command: "mv lib/local-skills lib/moved && touch lib/local-skills" }, context),
    ).then(
      () => "no report",
      (error: Error) => error.message,
    );
    expect(report).toContain("was moved to lib/moved/reviewer, and its old place is taken or gone");
    const write = (path: string) =>
      Promise.resolve(writeFileTool.run({ path, content: "PWNED" }, context)).then(
        () => "ok",
        (error: Error) => error.message,
      );
    expect(await write("lib/moved/reviewer/SKILL.md")).toMatch(/in a skill folder moved there/);
    expect(await write("lib/moved/reviewer/scripts/run.sh")).toMatch(/in a skill folder moved there/);
    expect(await write("lib/moved/notes.md")).toBe("ok");
    // Another command finds it by its identity, and sees it read-only where it is.
    const planted = await Promise.resolve(
      runCommandTool.run({ command: "echo PWNED > lib/moved/reviewer/SKILL.md" }, context),
    ).then(
      (output) => output,
      (error: Error) => error.message,
    );
    expect(planted).toMatch(/Read-only file system/);
    expect(readFileSync(join(cwd, "lib", "moved", "reviewer", "SKILL.md"), "utf8")).toBe("the skill");
    expect(readFileSync(join(cwd, "lib", "moved", "reviewer", "SKILL.md"), "utf8")).toBe("the skill");
  });

  it("leave a user's link on the way to them alone, whatever the case the program writes them in", async () => {
    const cwd = temporaryFolder("prosec-skill-places-");
    mkdirSync(join(cwd, "vendor", "reviewer"), { recursive: true });
    mkdirSync(join(cwd, "lib"));
    writeFileSync(join(cwd, "vendor", "reviewer", "SKILL.md"), "the skill");
    symlinkSync("../vendor", join(cwd, "lib", "Local-Skills"));
    const places = runSkillPlaces(info("main", { skillFolders: { reviewer: "lib/Local-Skills/reviewer" } }), cwd);
    const output = await Promise.resolve(
      runCommandTool.run(
        { command: "echo notes > lib/notes.txt" },
        contextOf(cwd, places, { write: ["lib/**"], bash: "allow" }),
      ),
    );
    expect(output).toBe("exit code 0\n");
    expect(lstatSync(join(cwd, "lib", "Local-Skills")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(cwd, "lib", "Local-Skills", "reviewer", "SKILL.md"), "utf8")).toBe("the skill");
  });
});
