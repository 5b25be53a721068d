import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "../support/cli.js";
import { zipEntries } from "../support/zip.js";
import { temporaryFolder } from "../support/temp.js";

const extension = join(repositoryRoot, "editors/vscode");
const vsce = join(extension, "node_modules/.bin/vsce");

describe("VS Code extension: packaging", () => {
  // The extension has a lockfile of its own; a fresh clone has not installed it, so the test does.
  beforeAll(() => {
    if (existsSync(vsce)) return;
    const installed = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", extension], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (installed.status !== 0)
      throw new Error(`npm ci --prefix editors/vscode failed:\n${installed.stdout}${installed.stderr}`);
  }, 300_000);

  it("packages with @vscode/vsce into a .vsix holding the client, the language files and the runtime dependencies only", () => {
    const out = join(temporaryFolder("prosec-vsix-"), "prose.vsix");
    const packaged = spawnSync(vsce, ["package", "--allow-missing-repository", "--out", out], {
      cwd: extension,
      encoding: "utf8",
    });
    expect(packaged.status, packaged.stdout + packaged.stderr).toBe(0);

    const entries = zipEntries(readFileSync(out));
    const names = entries.map((entry) => entry.name);
    const own = names.filter((name) => !name.startsWith("extension/node_modules/")).sort();
    expect(own).toEqual([
      "[Content_Types].xml",
      "extension.vsixmanifest",
      "extension/LICENSE.txt",
      "extension/extension.js",
      "extension/language-configuration.json",
      "extension/package.json",
      "extension/readme.md",
      "extension/server-command.js",
      "extension/syntaxes/prose.tmLanguage.json",
    ]);
    const dependencies = new Set(
      names.filter((name) => name.startsWith("extension/node_modules/")).map((name) => name.split("/")[2]),
    );
    expect(dependencies.has("vscode-languageclient")).toBe(true);
    expect([...dependencies].filter((name) => name === "@vscode" || name === "vscode-textmate")).toEqual([]);
    expect(names.filter((name) => name.endsWith(".d.ts") || name.endsWith(".map"))).toEqual([]);

    const read = (name: string) =>
      entries
        .find((entry) => entry.name === name)!
        .read()
        .toString("utf8");
    const manifest = JSON.parse(read("extension/package.json"));
    expect([manifest.name, manifest.publisher, manifest.contributes.languages[0].id]).toEqual([
      "prose",
      "prosec",
      "prose",
    ]);
    expect(read("extension/syntaxes/prose.tmLanguage.json")).toBe(
      readFileSync(join(extension, "syntaxes/prose.tmLanguage.json"), "utf8"),
    );
    expect(read("extension.vsixmanifest")).toContain(
      '<Identity Language="en-US" Id="prose" Version="0.2.0" Publisher="prosec"',
    );
  });
});
