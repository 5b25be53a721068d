#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.mjs in turn (each prints its own table).
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((name) => name.endsWith(".bench.mjs"))
  .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
  .sort();

let failed = false;
for (const bench of benches) {
  console.log(`\n## ${bench}\n`);
  const result = spawnSync(process.execPath, ["--expose-gc", join(here, bench)], { stdio: "inherit" });
  if (result.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
