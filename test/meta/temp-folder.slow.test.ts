import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { alive, processesOf } from "../support/leftovers.js";
import setup from "../support/temp-folder.js";

/**
 * Starts `script` in the background with TMPDIR at `folder`, as a process a test started and forgot: by
 * way of a shell that exits at once, so it is nobody's child here. Its pid, once it has run `script`.
 */
async function forgotten(folder: string, script: string, temp = folder): Promise<number> {
  mkdirSync(temp, { recursive: true });
  const ready = join(folder, `ready-${Math.random().toString(36).slice(2)}`);
  const started = spawnSync("sh", ["-c", `"${process.execPath}" -e "$SCRIPT" >"$READY" 2>&1 & echo $!`], {
    encoding: "utf8",
    env: { ...process.env, TMPDIR: temp, READY: ready, SCRIPT: `${script}; console.log("ready")` },
  });
  await vi.waitFor(() => expect(readFileSync(ready, "utf8")).toBe("ready\n"), { timeout: 20_000, interval: 20 });
  return Number(started.stdout.trim());
}

describe("the test run's temp folder", () => {
  const exitCode = process.exitCode;
  afterEach(() => {
    process.exitCode = exitCode;
    vi.restoreAllMocks();
  });

  it("is removed at the end, and the run fails naming what a test left in it", async () => {
    const outer = tmpdir();
    const teardown = await setup();
    const folder = tmpdir();
    expect(folder).not.toBe(outer);
    writeFileSync(join(folder, "left-behind.txt"), "");
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await teardown();
    expect(tmpdir()).toBe(outer);
    expect(existsSync(folder)).toBe(false);
    expect(process.exitCode).toBe(1);
    expect(String(error.mock.calls[0]?.[0])).toContain("Tests left 1 entry in the temp folder");
    expect(String(error.mock.calls[0]?.[0])).toContain("left-behind.txt");
  });

  it("is removed quietly when the tests left it empty", async () => {
    const teardown = await setup();
    const folder = tmpdir();
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await teardown();
    expect(existsSync(folder)).toBe(false);
    expect(process.exitCode).toBe(exitCode);
    expect(error).not.toHaveBeenCalled();
  });

  it.runIf(existsSync("/proc"))(
    "stops the processes a test left running, even one that ignores SIGTERM, and fails the run naming them",
    { timeout: 30_000 },
    async () => {
      const teardown = await setup();
      const folder = tmpdir();
      // One with a temp folder of its own inside the run's, as the tests give Chromium.
      const polite = await forgotten(folder, "setInterval(() => {}, 1000)", join(folder, "profile"));
      const stubborn = await forgotten(folder, "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)");
      expect(processesOf(folder).map(({ pid }) => pid)).toEqual(expect.arrayContaining([polite, stubborn]));
      const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
      await teardown();
      expect(processesOf(folder)).toEqual([]);
      for (const pid of [polite, stubborn]) expect(alive(pid)).toBe(false);
      expect(process.exitCode).toBe(1);
      const message = String(error.mock.calls[0]?.[0]);
      expect(message).toContain("Tests left 2 processes running");
      expect(message).toContain(`  ${polite} `);
      expect(message).toContain(`  ${stubborn} `);
    },
  );

  it.runIf(existsSync("/proc"))(
    "removes the folder of an earlier run that was killed, after stopping what it left running",
    { timeout: 30_000 },
    async () => {
      const outer = tmpdir();
      // A run whose process is gone: the pid of a shell that has exited.
      const dead = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim();
      const folder = join(outer, `prosec-tests-${dead}-killed`);
      mkdirSync(join(folder, "data"), { recursive: true });
      const orphan = await forgotten(folder, "setInterval(() => {}, 1000)");
      const teardown = await setup();
      expect(existsSync(folder)).toBe(false);
      expect(alive(orphan)).toBe(false);
      await teardown();
    },
  );
});
