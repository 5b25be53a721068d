/**
 * Where skills are read, protected where they are (DIALECT.md): the working directory's `skills/` and
 * `.claude/skills/` may not be written by an agent's file tools or commands, in any case and through
 * any link, while a `skills` folder elsewhere (`src/skills/x.ts`) is an ordinary folder. `.mcp.json`
 * stays protected by name anywhere: the nearest one above a program chooses its run's servers.
 * Judged by effect, with the real sandbox (bubblewrap).
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Permissions } from "../../runtime/types.js";
import { runCommandTool, writeFileTool } from "../../runtime/tools/builtin.js";
import { PermissionGuard } from "../../runtime/tools/permissions.js";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { temporaryFolder } from "../runtime/helpers.js";

beforeAll(() => {
  ensureBubblewrap();
});

const SKILL = "---\nname: review\ndescription: Reviews\n---\nbody\n";

function project(): string {
  const cwd = temporaryFolder("prosec-places-");
  mkdirSync(join(cwd, "skills", "review"), { recursive: true });
  writeFileSync(join(cwd, "skills", "review", "SKILL.md"), SKILL);
  mkdirSync(join(cwd, "src"), { recursive: true });
  return cwd;
}

function contextOf(cwd: string, permissions: Permissions = { bash: "allow" }) {
  const guard = new PermissionGuard(cwd, permissions, undefined);
  return { cwd, signal: new AbortController().signal, permissions: guard };
}

/** write_file's answer: "ok", or the tool error the model would see. */
async function write(cwd: string, path: string, permissions?: Permissions): Promise<string> {
  return Promise.resolve(writeFileTool.run({ path, content: "x" }, contextOf(cwd, permissions))).then(
    () => "ok",
    (error: Error) => error.message,
  );
}

async function command(cwd: string, line: string): Promise<string> {
  return Promise.resolve(runCommandTool.run({ command: line }, contextOf(cwd))).catch(
    (error: Error) => `TOOL ERROR ${error.message}`,
  );
}

describe("the places skills are read from", () => {
  it("file tools: skills/ and .claude/skills/ of the working directory refused in any case and through links; src/skills/ allowed", async () => {
    const cwd = project();
    mkdirSync(join(cwd, ".claude"));
    symlinkSync("skills", join(cwd, "alias"));
    mkdirSync(join(cwd, "deep"));
    symlinkSync(join(cwd, ".claude"), join(cwd, "deep", "claude"));
    for (const refused of [
      "skills/review/SKILL.md",
      "skills/new/SKILL.md",
      "Skills/new/SKILL.md",
      ".claude/skills/new/SKILL.md",
      ".CLAUDE/SKILLS/new/SKILL.md",
      "alias/review/SKILL.md",
      "deep/claude/skills/new/SKILL.md",
      ".mcp.json",
      "src/.mcp.json",
    ])
      expect([refused, await write(cwd, refused)]).toEqual([refused, expect.stringMatching(/not permitted/)]);
    for (const allowed of ["src/skills/x.ts", "docs/skills/intro.md", "skills.md", ".claude/settings.json"])
      expect([allowed, await write(cwd, allowed)]).toEqual([allowed, "ok"]);
    expect(readFileSync(join(cwd, "skills", "review", "SKILL.md"), "utf8")).toBe(SKILL);
    // A pattern that names the place lets it through, as for every protected part.
    expect(await write(cwd, "skills/new/SKILL.md", { write: ["skills/**"] })).toBe("ok");
  });

  it("commands: skills/ read-only, new ones at the places removed, a link that would move them removed; src/skills/ kept", async () => {
    const cwd = project();
    const out = await command(
      cwd,
      [
        "echo pwned > skills/review/SKILL.md",
        "mkdir -p src/skills && echo kept > src/skills/a.ts",
        "mkdir -p .claude/skills/evil && echo evil > .claude/skills/evil/SKILL.md",
        "echo done",
      ].join("; "),
    );
    expect(out).toMatch(/SKILL\.md: Read-only file system/);
    expect(readFileSync(join(cwd, "skills", "review", "SKILL.md"), "utf8")).toBe(SKILL);
    expect(readFileSync(join(cwd, "src", "skills", "a.ts"), "utf8")).toBe("kept\n");
    expect(out).toContain("removed .claude/skills");
    expect(existsSync(join(cwd, ".claude", "skills"))).toBe(false);

    const linked = await command(
      cwd,
      "mkdir -p sub/skills/evil && echo evil > sub/skills/evil/SKILL.md && rm -rf .claude && ln -s sub .claude",
    );
    expect(linked).toContain("removed .claude");
    expect(lstatSync(join(cwd, ".claude"), { throwIfNoEntry: false })).toBeUndefined();
    // sub/skills is an ordinary folder: left as it is.
    expect(existsSync(join(cwd, "sub", "skills", "evil", "SKILL.md"))).toBe(true);
  });

  it("skills/ cannot be moved; .claude/skills moved aside with its folder is moved back; a user's own .claude link is left alone", async () => {
    const cwd = project();
    mkdirSync(join(cwd, ".claude", "skills", "notes"), { recursive: true });
    writeFileSync(join(cwd, ".claude", "skills", "notes", "SKILL.md"), SKILL);
    const out = await command(cwd, "mv skills src/skills; mv .claude aside; echo moved");
    expect(out).toMatch(/mv: cannot move 'skills'/);
    expect(out).toContain("moved aside/skills back to .claude/skills");
    expect(readFileSync(join(cwd, "skills", "review", "SKILL.md"), "utf8")).toBe(SKILL);
    expect(readFileSync(join(cwd, ".claude", "skills", "notes", "SKILL.md"), "utf8")).toBe(SKILL);

    const other = project();
    symlinkSync(temporaryFolder("prosec-places-dotfiles-"), join(other, ".claude"));
    expect(await command(other, "echo untouched")).toBe("exit code 0\nuntouched\n");
    expect(lstatSync(join(other, ".claude")).isSymbolicLink()).toBe(true);
  });
});
