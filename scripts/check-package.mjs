#!/usr/bin/env node
// `node scripts/check-package.mjs prosec-X.Y.Z.tgz`: refuses a tarball that is not the package users
// must get, before it is published. npm runs no script when told not to (`npm pack --ignore-scripts`,
// `ignore-scripts=true` in .npmrc), and then packs no build: dist/ is a link in a checkout
// (scripts/build.mjs), which npm leaves out, and prepack (scripts/pack-dist.mjs), which puts a copy in
// its place and takes the checkout's scripts out of package.json, never ran. No npm hook runs under
// --ignore-scripts, so the check is a step of its own: `npm run release` packs and runs it, and
// CONTRIBUTING.md's "Releasing" publishes only a tarball it passed.
//
// It checks that every file package.json points to (main, types, each export, each bin) is in the
// tarball, and that the packed package.json has no scripts (prepack ran). Exit 0 when it is whole,
// 1 when it is not (saying what is missing and how to pack it), 2 on a usage error.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const tarball = process.argv[2];
if (tarball === undefined || !existsSync(tarball)) {
  console.error("usage: node scripts/check-package.mjs <tarball>  (the file `npm pack` wrote)");
  process.exit(2);
}

const tar = (...args) => {
  const result = spawnSync("tar", [...args, "-f", tarball], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    console.error(`check-package: tar could not read ${tarball}: ${result.stderr.trim()}`);
    process.exit(1);
  }
  return result.stdout;
};

const files = new Set(
  tar("-tz")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^package\//, "")),
);
const manifest = JSON.parse(tar("-xzO", "package/package.json"));

/** Every file the manifest points to, as a path in the package. */
function pointedTo(value) {
  if (typeof value === "string") return [value.replace(/^\.\//, "")];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(pointedTo);
}
const wanted = [
  ...pointedTo(manifest.main),
  ...pointedTo(manifest.types),
  ...pointedTo(manifest.exports),
  ...pointedTo(manifest.bin),
].filter((path) => !path.endsWith("package.json"));
const missing = [...new Set(wanted)].filter((path) => !files.has(path));
const problems = [];
if (missing.length > 0)
  problems.push(`it lacks ${missing.length === 1 ? "a file" : "files"} package.json points to: ${missing.join(", ")}`);
if (manifest.scripts !== undefined)
  problems.push("its package.json still has the checkout's scripts: prepack (scripts/pack-dist.mjs) did not run");

if (problems.length > 0) {
  console.error(`check-package: ${tarball} is not the package users must get:`);
  for (const problem of problems) console.error(`  - ${problem}`);
  console.error(
    "  help: it was packed with scripts turned off (`npm pack --ignore-scripts`, or ignore-scripts=true in .npmrc).\n" +
      "        Pack it with scripts on: `npm run release` (or `npm pack --ignore-scripts=false`), then check it again.",
  );
  process.exit(1);
}
console.log(`check-package: ${tarball} is whole: ${files.size} files, a build, no scripts.`);
