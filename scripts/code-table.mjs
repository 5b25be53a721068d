#!/usr/bin/env node
// Writes the table of diagnostic codes into README.md from src/diagnostics/codes.ts (as compiled
// into dist/ by `npm run build`, which `npm run readme` runs first).
// `--check` compares instead of writing and exits 1 when the README is stale.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { withCodeTable } = await import(join(root, "dist/src/diagnostics/code-table.js"));
const path = join(root, "README.md");
const current = readFileSync(path, "utf8");
const updated = withCodeTable(current);

if (process.argv.includes("--check")) {
  if (updated !== current) {
    console.error("README.md's code table is stale: run `npm run readme`.");
    process.exit(1);
  }
} else if (updated !== current) {
  writeFileSync(`${path}.tmp`, updated);
  renameSync(`${path}.tmp`, path);
}
