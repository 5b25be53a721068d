// The fake Messages API server of the tests (test/support/fake-anthropic.ts imports only Node
// built-ins), transpiled once into bench/results/ so benchmarks and their child processes load it
// without the TypeScript compiler.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
export const fakeServerModule = join(root, "bench/results/fake-anthropic.mjs");

/** Writes the transpiled module (child processes then load it without the TypeScript compiler's memory). */
export function transpileFakeServer() {
  const ts = createRequire(import.meta.url)("typescript");
  const source = readFileSync(join(root, "test/support/fake-anthropic.ts"), "utf8");
  const output = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  mkdirSync(dirname(fakeServerModule), { recursive: true });
  writeFileSync(fakeServerModule, output);
}

export function importFakeServer() {
  return import(pathToFileURL(fakeServerModule).href);
}

export async function loadFakeServer() {
  transpileFakeServer();
  return importFakeServer();
}
