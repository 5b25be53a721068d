import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeDirectory } from "../../runtime/make-directory.js";
import { temporaryFolder } from "../support/temp.js";

describe("makeDirectory", () => {
  it("creates a folder and its missing parents, and accepts one that exists", () => {
    const root = temporaryFolder("prosec-mkdir-");
    const deep = join(root, "a", "b", "c");
    makeDirectory(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    makeDirectory(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
  });

  it("fails at once where a parent is a file", () => {
    const root = temporaryFolder("prosec-mkdir-");
    writeFileSync(join(root, "file"), "");
    expect(() => makeDirectory(join(root, "file", "sub"))).toThrow(/ENOTDIR|EEXIST/);
  });

  // Node's own recursive mkdirSync never returns here; this test would hang rather than fail with it.
  it.runIf(process.platform === "linux")("fails at once under a pseudo file system (/proc) instead of hanging", () => {
    expect(() => makeDirectory("/proc/prosec-no-such/sub")).toThrow(/ENOENT/);
    expect(existsSync("/proc/prosec-no-such")).toBe(false);
  });
});
