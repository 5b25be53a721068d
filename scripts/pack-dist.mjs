#!/usr/bin/env node
// `npm pack` and `npm publish` run `pack-dist.mjs before` (prepack) and `pack-dist.mjs after`
// (postpack) around packing the checkout. Two things differ between the checkout and its package:
//
// - dist is a symbolic link (scripts/build.mjs), and npm leaves links out of a package: `before`
//   builds if stale, then puts a copy of the build at dist/; `after` puts the link back. Each swap is
//   two renames in a row: a `prosec` started from the checkout in that instant may not find dist/;
//   running ones are unaffected.
// - package.json's scripts are the checkout's (build, test, and `prepare`, which builds dist/ after
//   `npm ci`): none of them means anything in the package, which holds no sources, and npm counts a
//   `prepare` of a package installed from a tarball or a folder as an install script, warning on every
//   install that it was not approved. `before` writes package.json without `scripts` (npm reads the
//   packed manifest after prepack), keeping the original aside; `after` puts it back, byte for byte.
//   A pack that died between the two leaves the original aside: the next `before` puts it back first.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const link = join(root, "dist");
/** Where the link waits while dist/ is a copy. */
const aside = join(root, ".dist", "packing.link");
const manifest = join(root, "package.json");
/** Where the checkout's package.json waits while the packed one is in its place. */
const manifestAside = join(root, ".dist", "packing.package.json");

const isLink = (path) => {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
};

/** The checkout's package.json back in its place, if a pack set it aside. */
function restoreManifest() {
  if (existsSync(manifestAside)) renameSync(manifestAside, manifest);
}

const step = process.argv[2];
if (step === "before") {
  if (existsSync(manifestAside)) {
    console.error("prosec: an earlier pack did not finish; its package.json is put back first.");
    restoreManifest();
  }
  const prepared = spawnSync(process.execPath, [join(root, "scripts", "prepare.mjs")], { cwd: root, stdio: "inherit" });
  if (prepared.status !== 0) process.exit(prepared.status ?? 1);
  const original = readFileSync(manifest, "utf8");
  const { scripts: _scripts, ...packed } = JSON.parse(original);
  mkdirSync(dirname(manifestAside), { recursive: true });
  writeFileSync(manifestAside, original);
  const next = `${manifest}.${process.pid}`;
  writeFileSync(next, `${JSON.stringify(packed, null, 2)}\n`);
  renameSync(next, manifest);
  if (!isLink(link)) process.exit(0);
  const copy = join(root, ".dist", `packing-${process.pid}`);
  cpSync(join(root, ".dist", readlinkSync(link).replace(/^\.dist\//, "")), copy, { recursive: true });
  renameSync(link, aside);
  renameSync(copy, link);
} else if (step === "after") {
  restoreManifest();
  if (!isLink(aside)) process.exit(0);
  const next = join(root, `dist.${process.pid}.link`);
  rmSync(next, { force: true });
  symlinkSync(readlinkSync(aside), next, "dir");
  const packed = join(root, ".dist", `packed-${process.pid}`);
  renameSync(link, packed);
  renameSync(next, link);
  rmSync(packed, { recursive: true, force: true });
  rmSync(aside, { force: true });
} else {
  console.error("usage: node scripts/pack-dist.mjs before|after");
  process.exit(2);
}
