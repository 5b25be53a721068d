import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import setup from "../support/temp-folder.js";

describe("the test run's temp folder", () => {
  const exitCode = process.exitCode;
  afterEach(() => {
    process.exitCode = exitCode;
    vi.restoreAllMocks();
  });

  it("is removed at the end, and the run fails naming what a test left in it", () => {
    const outer = tmpdir();
    const teardown = setup();
    const folder = tmpdir();
    expect(folder).not.toBe(outer);
    writeFileSync(join(folder, "left-behind.txt"), "");
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    teardown();
    expect(tmpdir()).toBe(outer);
    expect(existsSync(folder)).toBe(false);
    expect(process.exitCode).toBe(1);
    expect(String(error.mock.calls[0]?.[0])).toContain("Tests left 1 entry in the temp folder");
    expect(String(error.mock.calls[0]?.[0])).toContain("left-behind.txt");
  });

  it("is removed quietly when the tests left it empty", () => {
    const teardown = setup();
    const folder = tmpdir();
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    teardown();
    expect(existsSync(folder)).toBe(false);
    expect(process.exitCode).toBe(exitCode);
    expect(error).not.toHaveBeenCalled();
  });
});
