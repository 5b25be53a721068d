#!/usr/bin/env node
// Compiles grammar/prose.ne into src/phases/1-parse/grammar.ts with nearley's own compiler.
// `--check` compares instead of writing and exits 1 when the committed file is stale.
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileGrammar } from "./compile-grammar.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const target = join(root, "src/phases/1-parse/grammar.ts");
const compiled = compileGrammar(root);

if (process.argv.includes("--check")) {
  const current = readFileSync(target, "utf8");
  if (current !== compiled) {
    console.error("src/phases/1-parse/grammar.ts is stale: run `npm run grammar`.");
    process.exit(1);
  }
} else {
  writeFileSync(`${target}.tmp`, compiled);
  renameSync(`${target}.tmp`, target);
}
