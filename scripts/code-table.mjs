#!/usr/bin/env node
// Writes the table of diagnostic codes into docs/diagnostics.md from src/diagnostics/codes.ts (as
// compiled into dist/ by `npm run build`, which `npm run codes` runs first).
// `--check` compares instead of writing and exits 1 when the page is stale.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { withCodeTable } = await import(join(root, "dist/src/diagnostics/code-table.js"));
const path = join(root, "docs/diagnostics.md");
const current = readFileSync(path, "utf8");
const updated = withCodeTable(current);

if (process.argv.includes("--check")) {
  if (updated !== current) {
    console.error("docs/diagnostics.md's code table is stale: run `npm run codes`.");
    process.exit(1);
  }
} else if (updated !== current) {
  writeFileSync(`${path}.tmp`, updated);
  renameSync(`${path}.tmp`, path);
}
