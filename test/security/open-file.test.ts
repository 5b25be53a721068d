/**
 * What the path check cannot see: a link swapped in between the check and the open (a second process
 * of the attacker's racing the tool), and kernel files inside the working directory. The tools are the
 * real ones on real files; the race is played by a guard that swaps the link right after judging.
 * The tools open first and then judge what they opened (its fstat, the path its descriptor names), so
 * no swap between the check and the open reaches a file outside, for reads as for writes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { editFileTool, readFileTool, writeFileTool } from "../../runtime/tools/builtin.js";
import { PermissionGuard } from "../../runtime/tools/permissions.js";
import type { ToolContext } from "../../runtime/types.js";
import { temporaryFolder } from "../runtime/helpers.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function layout(): { project: string; outside: string } {
  const root = temporaryFolder("prosec-race-");
  folders.push(root);
  const project = join(root, "project");
  const outside = join(root, "outside");
  mkdirSync(join(project, "docs"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "CANARY-OUTSIDE\n");
  writeFileSync(join(project, "docs/x.md"), "inside\n");
  return { project, outside };
}

/** A guard whose every check is followed by the attacker's move, once. */
class RacedGuard extends PermissionGuard {
  constructor(
    cwd: string,
    private move: (() => void) | undefined,
  ) {
    super(cwd, {}, undefined);
  }
  override writablePath(path: string): string {
    const real = super.writablePath(path);
    this.play();
    return real;
  }
  override readablePath(path: string): string {
    const real = super.readablePath(path);
    this.play();
    return real;
  }
  private play(): void {
    const move = this.move;
    this.move = undefined;
    move?.();
  }
}

const context = (guard: PermissionGuard): ToolContext => ({
  cwd: guard.cwd,
  signal: new AbortController().signal,
  permissions: guard,
});

describe("a link swapped in after the check", () => {
  // Changed by issue 38 (class 6): the file was created outside, then refused and removed; now it is
  // never created, since files are made only inside the folder whose descriptor was checked.
  it("a folder swapped for a link to outside: nothing is created there", async () => {
    const { project, outside } = layout();
    const guard = new RacedGuard(project, () => {
      renameSync(join(project, "docs"), join(project, "docs-moved"));
      symlinkSync(outside, join(project, "docs"));
    });
    await expect(writeFileTool.run({ path: "docs/new.md", content: "PWNED" }, context(guard))).rejects.toThrow(
      /A folder of docs\/new.md became a symbolic link after it was checked/,
    );
    expect(existsSync(join(outside, "new.md"))).toBe(false);
  });

  it("a file swapped for a link to outside is not followed (O_NOFOLLOW)", async () => {
    const { project, outside } = layout();
    const guard = new RacedGuard(project, () => {
      rmSync(join(project, "docs/x.md"));
      symlinkSync(join(outside, "secret.txt"), join(project, "docs/x.md"));
    });
    await expect(writeFileTool.run({ path: "docs/x.md", content: "PWNED" }, context(guard))).rejects.toThrow(
      /became a symbolic link/,
    );
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("CANARY-OUTSIDE\n");
  });

  it("an edit whose file is swapped for a link to outside is refused", async () => {
    const { project, outside } = layout();
    const guard = new RacedGuard(project, () => {
      rmSync(join(project, "docs/x.md"));
      symlinkSync(join(outside, "secret.txt"), join(project, "docs/x.md"));
    });
    await expect(
      editFileTool.run({ path: "docs/x.md", old_text: "CANARY", new_text: "PWNED" }, context(guard)),
    ).rejects.toThrow(/became a symbolic link|outside the working directory/);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("CANARY-OUTSIDE\n");
  });
});

describe("a read whose path is swapped after the check: the opened descriptor is judged", () => {
  it("a folder swapped for a link to outside: the file there is opened, judged and not read", async () => {
    const { project, outside } = layout();
    writeFileSync(join(outside, "x.md"), "CANARY-OUTSIDE\n");
    const guard = new RacedGuard(project, () => {
      renameSync(join(project, "docs"), join(project, "docs-moved"));
      symlinkSync(outside, join(project, "docs"));
    });
    const read = readFileTool.run({ path: "docs/x.md" }, context(guard));
    await expect(read).rejects.toThrow(/outside the working directory/);
    await expect(read).rejects.not.toThrow(/CANARY/);
  });

  it("a file swapped for a FIFO: the open does not block and the descriptor's fstat refuses it", async () => {
    const { project } = layout();
    const guard = new RacedGuard(project, () => {
      rmSync(join(project, "docs/x.md"));
      execFileSync("mkfifo", [join(project, "docs/x.md")]);
    });
    await expect(readFileTool.run({ path: "docs/x.md" }, context(guard))).rejects.toThrow(
      /docs\/x\.md is not a regular file/,
    );
  });
});

describe("kernel files inside the working directory", () => {
  it("with the working directory at /, /proc/self/environ and /dev are still refused", async () => {
    const guard = new PermissionGuard("/", { read: ["**"], write: ["**"] }, undefined);
    for (const path of ["proc/self/environ", "/proc/self/environ", "sys/kernel/hostname", "dev/zero"])
      await expect(readFileTool.run({ path }, context(guard))).rejects.toThrow(/device or kernel file/);
    await expect(writeFileTool.run({ path: "dev/stdout", content: "forged" }, context(guard))).rejects.toThrow(
      /device or kernel file/,
    );
  });
});
