/**
 * A program and the programs it `use`s (local and vendored), compiled and loaded as ES modules: what
 * `prosec run` executes. With `cache` (`prosec run`, the worker), the modules are kept under the
 * project's `.prose/cache/` and an unchanged program is loaded from there without the compiler
 * (module-cache.ts); without it nothing is written to disk and the modules are loaded as `data:` URLs
 * (so a module's identity is its content).
 */
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { hasErrors } from "../diagnostics/diagnostic.js";
import type { CheckedFile } from "./compile-in-memory.js";
import { portable } from "../project/output-path.js";
import { buildRoot } from "../package-root.js";
import { projectTools } from "../project/mcp-servers.js";
import { compilerVersion } from "../version.js";
import { ModuleCache } from "./module-cache.js";
import type { ProgramInfo, RunOptions, Value } from "../../runtime/index.js";

/** What a generated module exports. */
export interface ProgramModule {
  run(inputs: { readonly [name: string]: Value }, options?: RunOptions): Promise<{ readonly [name: string]: Value }>;
  readonly default: ProgramInfo;
}

export type { CheckedFile } from "./compile-in-memory.js";

export interface LoadResult {
  /** The program first, then the programs it imports. */
  readonly files: readonly CheckedFile[];
  /** Absent when any of the files has errors. */
  readonly module?: ProgramModule;
  /**
   * A hash of the compiled modules (the program's and those it imports) and of the compiler's
   * version: what a DBOS worker names its application version, so it never replays another program.
   */
  readonly codeHash?: string;
  /** Whether the modules came from the module cache (the compiler was not loaded). */
  readonly cached?: boolean;
}

export interface LoadOptions {
  readonly cwd?: string;
  readonly strict?: boolean;
  /** `prosec eval`: the program's own asserts are scored; those of the programs it uses still raise. */
  readonly scoreAsserts?: boolean;
  /** Keep and reuse the compiled modules under the project's `.prose/cache/` (module-cache.ts). */
  readonly cache?: boolean;
}

/** Defined (as the bundled runtime's file name) only in the bundle scripts/bundle-run.mjs builds. */
declare const PROSEC_BUNDLED_RUNTIME: string | undefined;

/**
 * The runtime a compiled program imports: the same instance as the code that loads it. From the
 * bundle `prosec run` loads (dist/src/bundle/), the bundled runtime beside it; from dist/'s modules
 * or the sources, the runtime of the build this code runs from (package-root.ts).
 */
function runtimeModuleUrl(): string {
  if (typeof PROSEC_BUNDLED_RUNTIME === "string") return new URL(PROSEC_BUNDLED_RUNTIME, import.meta.url).href;
  return pathToFileURL(join(buildRoot(), "runtime", "index.js")).href;
}

export async function loadProgram(path: string, options: LoadOptions = {}): Promise<LoadResult> {
  const cwd = options.cwd ?? process.cwd();
  const program = resolve(cwd, path);
  const runtimeUrl = runtimeModuleUrl();
  const cache = options.cache === true ? new ModuleCache(cwd) : undefined;
  const scoreAsserts = options.scoreAsserts === true;
  // What the checks know of the project's tools (.mcp.json's servers, installed skills) is part of the key.
  const tools = JSON.stringify(projectTools(program, cwd));
  const key = cache?.keyOf(program, { strict: options.strict === true, scoreAsserts, tools, runtimeUrl });
  const hit = key === undefined ? undefined : cache!.read(key);
  if (hit !== undefined) {
    const files = hit.files.map((file) => ({
      file: portable(file.path, cwd),
      source: file.source,
      diagnostics: file.diagnostics,
    }));
    return { files, module: (await import(hit.moduleUrl)) as ProgramModule, codeHash: hit.codeHash, cached: true };
  }
  const { compileClosure, linkModules } = await import("./compile-in-memory.js");
  const compiled = compileClosure(program, cwd, {
    ...(options.strict === undefined ? {} : { strict: options.strict }),
    scoreAsserts,
  });
  const files = [...compiled.values()];
  if (files.some((file) => hasErrors(file.diagnostics))) return { files };
  const hash = createHash("sha256").update(`prosec ${compilerVersion}`);
  for (const file of files) hash.update("\0").update(file.code!);
  const codeHash = hash.digest("hex").slice(0, 16);
  // Into the cache when it can be written; a module that could not be placed there goes in a data: URL.
  let cacheable = cache !== undefined && key !== undefined;
  const placedUrls: string[] = [];
  const moduleUrl = linkModules(compiled, runtimeUrl, (_file, javascript) => {
    const placed = cacheable ? cache!.placeModule(javascript) : undefined;
    if (placed !== undefined) {
      placedUrls.push(placed);
      return placed;
    }
    cacheable = false;
    return `data:text/javascript;base64,${Buffer.from(javascript).toString("base64")}`;
  });
  const module = (await import(moduleUrl)) as ProgramModule;
  if (cacheable) cache!.write(key!, files, moduleUrl, placedUrls, codeHash);
  return { files, module, codeHash, cached: false };
}
