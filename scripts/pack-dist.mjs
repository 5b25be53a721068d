#!/usr/bin/env node
// npm leaves symbolic links out of a package, and dist is one (scripts/build.mjs). So `npm pack` and
// `npm publish` run `pack-dist.mjs before` (prepack: build if stale, then put a copy of the build at
// dist/) and `pack-dist.mjs after` (postpack: the link back). Each swap is two renames in a row: a
// `prosec` started from the checkout in that instant may not find dist/; running ones are unaffected.
import { spawnSync } from "node:child_process";
import { cpSync, lstatSync, readlinkSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const link = join(root, "dist");
/** Where the link waits while dist/ is a copy. */
const aside = join(root, ".dist", "packing.link");

const isLink = (path) => {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
};

const step = process.argv[2];
if (step === "before") {
  const prepared = spawnSync(process.execPath, [join(root, "scripts", "prepare.mjs")], { cwd: root, stdio: "inherit" });
  if (prepared.status !== 0) process.exit(prepared.status ?? 1);
  if (!isLink(link)) process.exit(0);
  const copy = join(root, ".dist", `packing-${process.pid}`);
  cpSync(join(root, ".dist", readlinkSync(link).replace(/^\.dist\//, "")), copy, { recursive: true });
  renameSync(link, aside);
  renameSync(copy, link);
} else if (step === "after") {
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
