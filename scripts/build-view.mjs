#!/usr/bin/env node
// `prosec view`'s page script: src/view/app/ bundled by esbuild into one file, dist/view/app.js (or the
// file named by the first argument: `npm run build` names its versioned folder's), which every page
// inlines (no asset is ever fetched from the network).
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
await build({
  entryPoints: [join(root, "src/view/app/main.ts")],
  outfile: process.argv[2] ?? join(root, "dist/view/app.js"),
  bundle: true,
  format: "iife",
  target: "es2020",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
});
