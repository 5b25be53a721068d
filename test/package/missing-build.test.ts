/**
 * A prosec with no build: a checkout installed with scripts turned off (`npm ci --ignore-scripts`,
 * `ignore-scripts=true` in .npmrc) or a package packed that way, which lacks dist/. `prosec` says
 * what is missing and how to build it, with the environment's exit code, not a module-loader stack.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { repositoryRoot } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

describe("prosec without its build", () => {
  it("says dist/ is missing and how to build it, for every command", () => {
    const folder = temporaryFolder("prosec-unbuilt-");
    mkdirSync(join(folder, "bin"));
    copyFileSync(join(repositoryRoot, "bin/prosec"), join(folder, "bin/prosec"));
    copyFileSync(join(repositoryRoot, "package.json"), join(folder, "package.json"));
    for (const args of [["--version"], ["run", "x.prose"]]) {
      const result = spawnSync(process.execPath, [join(folder, "bin/prosec"), ...args], { encoding: "utf8" });
      expect(result.status, args.join(" ")).toBe(EXIT.environment);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(
        [
          `prosec: ${join(folder, "dist")}/ is missing: this prosec was never built.`,
          "  help: in a checkout, run `npm run build` (`npm ci` builds it unless scripts are turned off);",
          "        a package packed with --ignore-scripts has no build: pack it again with scripts on.",
          "",
        ].join("\n"),
      );
    }
  });
});
