/**
 * The documentation's pictures exist (scripts/screenshots.mjs regenerates them: it is a script, not a
 * test, since pictures differ by a pixel from machine to machine).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../support/cli.js";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("docs/images", () => {
  it.each(["view-run.png", "graph.png"])("%s is a PNG picture, linked from docs/view.md", (name) => {
    const bytes = readFileSync(join(repositoryRoot, "docs/images", name));
    expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    // Width and height from the IHDR chunk: a real screenshot, not an empty image.
    expect(bytes.readUInt32BE(16)).toBeGreaterThan(200);
    expect(bytes.readUInt32BE(20)).toBeGreaterThan(200);
    expect(readFileSync(join(repositoryRoot, "docs/view.md"), "utf8")).toContain(`](images/${name})`);
  });
});
