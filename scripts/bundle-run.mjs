#!/usr/bin/env node
// `prosec run`'s start-up (issue 45): the CLI and the runtime bundled by esbuild from dist/ into a few
// files under dist/src/bundle/, so a run reads, parses and links a handful of files instead of about
// 120 of dist/'s modules. Both are entry points of one build with code splitting: what the CLI and the
// runtime share sits in shared chunks, so the runtime a compiled program imports (bundle/runtime.js,
// see src/run/load-program.ts) is the same instance the CLI uses. The packages a run loads whole and
// that keep no state shared with other code (the Anthropic SDK: about 250 modules) are bundled in;
// every other package stays external, loaded from node_modules as before. dist/'s modules stay as they
// are: the library's exports.
import { build } from "esbuild";
import { cpSync, existsSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = process.argv[2] ?? join(root, "dist");
if (!existsSync(join(dist, "src/cli/main.js"))) throw new Error(`bundle-run: ${dist} has no src/cli/main.js`);
const bundled = new Set(["@anthropic-ai/sdk", "p-map", "picomatch", "shell-quote"]);
const { dependencies } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const external = Object.keys(dependencies)
  .filter((name) => !bundled.has(name))
  .flatMap((name) => [name, `${name}/*`]);
const outdir = join(dist, "src/bundle");
rmSync(outdir, { recursive: true, force: true });
// yargs' CommonJS factory (src/cli/yargs.ts), bundled with the dozen small packages it requires: loaded
// from node_modules, resolving them through their package.json exports cost about 13 ms of every run.
// It finds its messages at ../locales from its own folder, where they are copied.
const yargsFactory = "yargs/factory.cjs";
const yargsPackage = dirname(createRequire(import.meta.url).resolve("yargs/package.json"));
await build({
  entryPoints: [createRequire(import.meta.url).resolve("yargs/yargs")],
  outfile: join(outdir, yargsFactory),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  legalComments: "none",
  logLevel: "error",
});
cpSync(join(yargsPackage, "locales"), join(outdir, "locales"), { recursive: true });
await build({
  entryPoints: { cli: join(dist, "src/cli/main.js"), runtime: join(dist, "runtime/index.js") },
  // In dist/src/bundle/ the paths the code finds relative to itself (../../runtime/index.d.ts, the
  // package.json above) are the ones it finds from dist/src/<folder>/.
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  chunkNames: "chunk-[hash]",
  define: {
    PROSEC_BUNDLED_RUNTIME: JSON.stringify("runtime.js"),
    PROSEC_BUNDLED_YARGS: JSON.stringify(`./${yargsFactory}`),
  },
  legalComments: "none",
  logLevel: "warning",
});
