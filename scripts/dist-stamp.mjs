// The stamp of a build: a hash of every file `npm run build` reads (the grammar, the sources, the build
// scripts and configuration, package.json). A build writes it last, as `.stamp` in the folder it built,
// so a folder with a stamp is complete, and `dist/` is current when its stamp is the sources' stamp.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const FOLDERS = ["grammar", "src", "runtime"];
const FILES = [
  "package.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "scripts/build.mjs",
  "scripts/build-grammar.mjs",
  "scripts/build-view.mjs",
  "scripts/compile-grammar.mjs",
  "scripts/dist-stamp.mjs",
];

/** The stamp file's name inside a built folder. */
export const STAMP_FILE = ".stamp";

/** The files of a folder, recursively, as sorted paths relative to the root (tests left out: not built). */
function filesUnder(root, folder) {
  const found = [];
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.endsWith(".test.ts")) continue;
    found.push(join(entry.parentPath, entry.name).slice(root.length + 1));
  }
  return found;
}

/** The stamp of the sources in `root`, or undefined where they are not there (an installed package). */
export function sourceStamp(root) {
  if (!FOLDERS.every((folder) => existsSync(join(root, folder)))) return undefined;
  const files = [
    ...FOLDERS.flatMap((folder) => filesUnder(root, folder)),
    ...FILES.filter((file) => existsSync(join(root, file))),
  ];
  const hash = createHash("sha256");
  for (const file of files.sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/** The stamp of a built folder, or undefined when it has none (never finished, or built before stamps). */
export function builtStamp(folder) {
  try {
    return readFileSync(join(folder, STAMP_FILE), "utf8").trim();
  } catch {
    return undefined;
  }
}
