#!/usr/bin/env node
// npm's `prepare`: builds dist/ after `npm ci` here, and before `npm pack`. npm also runs it in a
// checkout that another project installs by path (a link), on every `npm install` there: so it does
// nothing when dist/ is current (its stamp is the sources' stamp), and a build never takes dist/ away
// (scripts/build.mjs). Such a checkout may not have its own dependencies installed: there nearley and
// TypeScript are missing and the build would die on "Cannot find module 'nearley'", so say what to do.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtStamp, sourceStamp } from "./dist-stamp.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const stamp = sourceStamp(root);
// Current, or no sources to build from (the package as packed): nothing to do.
if (stamp === undefined || builtStamp(join(root, "dist")) === stamp) process.exit(0);

const require = createRequire(join(root, "package.json"));
const installed = (name) => {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
};
if (installed("nearley") && installed("typescript")) {
  const build = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { cwd: root, stdio: "inherit" });
  process.exit(build.status ?? 1);
}
console.error(`prosec: ${root} has no dependencies installed, so it cannot be built or used from here.`);
console.error(
  `prosec: run \`npm ci\` in ${root} first (it installs them and builds dist/), then install this project again.`,
);
process.exit(1);
