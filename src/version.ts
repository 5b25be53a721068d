import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

interface Package {
  readonly root: string;
  readonly version: string;
}

/** The folder of prosec's own package.json (above this file in src/ as in dist/src/), and its version. */
function findPackage(): Package {
  for (let directory = new URL("./", import.meta.url); ; directory = new URL("../", directory)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL("package.json", directory), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === "prosec" && manifest.version)
        return { root: fileURLToPath(directory), version: manifest.version };
    } catch {
      // not at the package root yet
    }
    if (directory.pathname === "/") return { root: fileURLToPath(new URL("../", import.meta.url)), version: "0.0.0" };
  }
}

const found = findPackage();

/** prosec's own version. */
export const compilerVersion: string = found.version;

/** prosec's package folder (where `dist/` is). */
export const packageRoot: string = found.root;
