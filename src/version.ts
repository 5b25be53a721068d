import { readFileSync } from "node:fs";

/** prosec's own version, from the package.json above this file (in src/ as in dist/src/). */
export const compilerVersion: string = findVersion();

function findVersion(): string {
  for (let directory = new URL("./", import.meta.url); ; directory = new URL("../", directory)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL("package.json", directory), "utf8")) as { name?: string; version?: string };
      if (manifest.name === "prosec" && manifest.version) return manifest.version;
    } catch {
      // not at the package root yet
    }
    if (directory.pathname === "/") return "0.0.0";
  }
}
