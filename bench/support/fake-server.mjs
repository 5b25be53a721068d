// The fake Messages API server of the tests (test/support/fake-anthropic.ts, its usage accounting
// fake-usage.ts, and the scripted corpus model with its request helpers, corpus-model.ts and
// requests.ts: they import only Node built-ins and each other), transpiled once into bench/results/ so
// benchmarks and their child processes load them without the TypeScript compiler.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
export const fakeServerModule = join(root, "bench/results/fake-anthropic.mjs");
const modules = ["fake-anthropic", "fake-stream", "fake-usage", "requests", "corpus-model"];

/** Writes the transpiled modules (child processes then load them without the TypeScript compiler's memory). */
export function transpileFakeServer() {
  const ts = createRequire(import.meta.url)("typescript");
  mkdirSync(dirname(fakeServerModule), { recursive: true });
  for (const name of modules) {
    const source = readFileSync(join(root, `test/support/${name}.ts`), "utf8");
    const output = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(
      join(dirname(fakeServerModule), `${name}.mjs`),
      output.replace(/from "\.\/([a-z-]+)\.js"/g, 'from "./$1.mjs"'),
    );
  }
}

export function importFakeServer() {
  return import(pathToFileURL(fakeServerModule).href);
}

export async function loadFakeServer() {
  transpileFakeServer();
  return importFakeServer();
}
