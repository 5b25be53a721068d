#!/usr/bin/env node
// `npm run build`: the grammar, then TypeScript and the view's page script into a new folder of its own,
// `.dist/<stamp>-<time>-<pid>`, then `dist` (a symbolic link) is pointed at it by one rename. dist/ is
// never missing nor half-written: a `prosec` started during a build runs the previous build, and a
// long-running one keeps the whole build it started with (Node loads modules by their real path, inside
// the versioned folder). The previous build is kept for such processes; older ones are removed.
import { spawnSync } from "node:child_process";
import {
  lstatSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtStamp, sourceStamp, STAMP_FILE } from "./dist-stamp.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const builds = join(root, ".dist");
const link = join(root, "dist");
/** An unfinished build (no stamp) older than this was abandoned (its process killed): removed. */
const ABANDONED_MS = 60 * 60 * 1000;

function run(script, ...args) {
  const result = spawnSync(process.execPath, [join(root, script), ...args], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** The versioned folder `dist` points at now, by its name under .dist/, if it is a link there. */
function linkedBuild() {
  try {
    const target = readlinkSync(link);
    return target.startsWith(".dist/") ? target.slice(".dist/".length) : undefined;
  } catch {
    return undefined;
  }
}

run("scripts/build-grammar.mjs");
const stamp = sourceStamp(root);
const name = `${stamp}-${Date.now().toString(36)}-${process.pid}`;
const folder = join(builds, name);
run("node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json", "--outDir", folder);
run("scripts/build-view.mjs", join(folder, "view", "app.js"));
// Last: the stamp says the folder is complete.
writeFileSync(join(folder, STAMP_FILE), `${stamp}\n`);

const previous = linkedBuild();
const next = join(root, `dist.${process.pid}.link`);
rmSync(next, { force: true });
symlinkSync(`.dist/${name}`, next, "dir");
let kind;
try {
  kind = lstatSync(link);
} catch {
  kind = undefined;
}
// A real dist/ folder (from a prosec before versioned builds) cannot be replaced by a link in one
// rename: it is moved aside first, once.
if (kind?.isDirectory()) renameSync(link, join(builds, `unversioned-${Date.now().toString(36)}`));
renameSync(next, link);

for (const entry of readdirSync(builds)) {
  if (entry === name || entry === previous) continue;
  const path = join(builds, entry);
  const finished = builtStamp(path) !== undefined;
  if (finished || entry.startsWith("unversioned-") || Date.now() - statSync(path).mtimeMs > ABANDONED_MS)
    rmSync(path, { recursive: true, force: true });
}
