/**
 * prosec on a Node older than its floor (package.json's `engines`): `npm install` only warns
 * (EBADENGINE), and the bundle then failed on its first missing API (`hash` from node:crypto on Node
 * 18) with a module loader's stack trace and exit 1. bin/prosec says which Node it needs, which one
 * runs it and what to do, with the environment's exit code, before loading anything.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { bin, repositoryRoot } from "../support/cli.js";

/** bin/prosec as a Node of version `version` runs it (process.versions.node replaced before it loads). */
function prosecOn(version: string, args: readonly string[]) {
  const preload = `data:text/javascript,Object.defineProperty(process.versions, "node", { value: "${version}" });`;
  return spawnSync(process.execPath, ["--import", preload, bin, ...args], { encoding: "utf8" });
}

describe("prosec on a Node older than its floor", () => {
  it("says which Node it needs and which runs it, with no stack trace, for every command", () => {
    for (const version of ["18.20.8", "20.18.3", "16.0.0"])
      for (const args of [["--version"], ["run", "x.prose"], ["check", "."]]) {
        const result = prosecOn(version, args);
        expect(result.status, `${version}: ${args.join(" ")}`).toBe(EXIT.environment);
        expect(result.stdout).toBe("");
        expect(result.stderr).toBe(
          [
            `prosec: needs Node 20.19 or newer; this is Node ${version} (${process.execPath}).`,
            "  help: install Node 20.19 or newer (an LTS: 22 or 24), then check it with `node --version`.",
            "",
          ].join("\n"),
        );
      }
  });

  it("runs on the floor itself and on later versions", () => {
    for (const version of ["20.19.0", "22.0.0", "24.11.1"]) {
      const result = prosecOn(version, ["--version"]);
      expect(result.stderr, version).toBe("");
      expect(result.status, version).toBe(EXIT.ok);
    }
  });

  it("has the floor package.json's engines declare", () => {
    const engines = (
      JSON.parse(readFileSync(join(repositoryRoot, "package.json"), "utf8")) as { engines: { node: string } }
    ).engines.node;
    expect(engines).toBe(">=20.19");
    expect(readFileSync(bin, "utf8")).toContain("const NODE_FLOOR = [20, 19];");
  });
});
