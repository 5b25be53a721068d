#!/usr/bin/env node
// npm's `prepare`: builds dist/ after `npm ci` here, and before `npm pack`. npm also runs it in a
// checkout that another project depends on through `file:` (a link), without installing that
// checkout's dependencies: there nearley and TypeScript are missing, and the build would die on
// "Cannot find module 'nearley'". Say what to do instead; a checkout already built needs nothing.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
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
  const npm = process.env.npm_execpath;
  const build = npm
    ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" })
    : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  process.exit(build.status ?? 1);
}
if (existsSync(join(root, "dist", "src", "cli", "main.js")) && installed("yargs")) process.exit(0);
console.error(`prosec: ${root} has no dependencies installed, so it cannot be built or used from here.`);
console.error(
  `prosec: run \`npm ci\` in ${root} first (it installs them and builds dist/), then install this project again.`,
);
process.exit(1);
