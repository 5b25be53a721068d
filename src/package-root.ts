import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder of prosec's own package.json, found from this file whether it runs from `dist/` (an
 * installed package) or from the sources (tests): what ships beside the code is found from here.
 */
export function packageRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(folder, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "prosec")
      return folder;
    const parent = dirname(folder);
    if (parent === folder) throw new Error("prosec's package.json was not found above its code");
    folder = parent;
  }
}

/**
 * The build this code runs from: the folder `dist` links to (scripts/build.mjs), or dist/ itself in an
 * installed package. Files loaded later (the runtime a program imports, the view's page script) come
 * from it, so a long-running process keeps one consistent build when a rebuild moves the link on. From
 * the sources (tests), the package's dist/.
 */
export function buildRoot(): string {
  const here = dirname(dirname(fileURLToPath(import.meta.url)));
  return existsSync(join(here, "runtime", "index.js")) ? here : join(packageRoot(), "dist");
}
