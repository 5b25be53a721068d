/**
 * A copy of this checkout for tests that build or pack it (so the `dist` the other tests run is left
 * alone): the named files and folders, the current build under .dist/ with a `dist` link to it, and
 * optionally the dependencies, each package linked from this checkout's node_modules.
 */
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
} from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "./cli.js";
import { temporaryFolder } from "./temp.js";

/** The files `npm run build` reads: the stamp of a build is made from them (scripts/dist-stamp.mjs). */
export const BUILD_SOURCES = [
  "package.json",
  "scripts",
  "src",
  "runtime",
  "grammar",
  "tsconfig.json",
  "tsconfig.build.json",
];

export interface CheckoutCopy {
  readonly folder: string;
  /** Where its `dist` links to, `.dist/<name>`. */
  readonly build: string;
}

export function copyOfCheckout(
  prefix: string,
  entries: readonly string[],
  { dependencies = false }: { readonly dependencies?: boolean } = {},
): CheckoutCopy {
  const dist = join(repositoryRoot, "dist");
  if (!existsSync(join(dist, ".stamp")))
    throw new Error("dist/ is missing or was built before stamps: run `npm run build` first (`npm test` does)");
  const folder = temporaryFolder(prefix);
  for (const entry of new Set(entries)) cpSync(join(repositoryRoot, entry), join(folder, entry), { recursive: true });
  const build = lstatSync(dist).isSymbolicLink() ? readlinkSync(dist) : ".dist/unlinked";
  cpSync(realpathSync(dist), join(folder, build), { recursive: true });
  symlinkSync(build, join(folder, "dist"), "dir");
  if (dependencies) {
    mkdirSync(join(folder, "node_modules"));
    for (const name of readdirSync(join(repositoryRoot, "node_modules"))) {
      if (name.startsWith(".")) continue;
      symlinkSync(join(repositoryRoot, "node_modules", name), join(folder, "node_modules", name), "dir");
    }
  }
  return { folder, build };
}
