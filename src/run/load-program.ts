/**
 * A program and the programs it `use`s (local and vendored), compiled in memory and loaded as ES modules: what
 * `prosec run` executes. Nothing is written to disk. Each module's types are stripped (sucrase: the
 * TypeScript compiler would stay in memory for the whole run, 130 MB of it) and its imports pointed
 * at the runtime this compiler ships and at the modules of the programs it calls, which are loaded
 * first (as `data:` URLs, so a module's identity is its content).
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { transform } from "sucrase";
import { importResolver } from "../project/imports.js";
import { portable } from "../project/output-path.js";
import { hashInputs, lowerSource, type ImportResolution } from "../compile.js";
import { projectTools } from "../project/mcp-servers.js";
import { hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { moduleSpecifier, stringLiteral } from "../phases/3-transform/index.js";
import { readProgram } from "../project/read-program.js";
import { buildRoot } from "../package-root.js";
import { compilerVersion } from "../version.js";
import type { ProgramInfo, RunOptions, Value } from "../../runtime/index.js";

/** What a generated module exports. */
export interface ProgramModule {
  run(inputs: { readonly [name: string]: Value }, options?: RunOptions): Promise<{ readonly [name: string]: Value }>;
  readonly default: ProgramInfo;
}

export interface CheckedFile {
  /** Relative to the working directory, `/`-separated. */
  readonly file: string;
  readonly source: string;
  readonly diagnostics: readonly Diagnostic[];
}

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
}

interface Compiled extends CheckedFile {
  readonly path: string;
  readonly code: string | undefined;
  /** `use` path → the imported program's absolute path. */
  readonly imports: ReadonlyMap<string, string>;
}

export async function loadProgram(
  path: string,
  options: {
    readonly cwd?: string;
    readonly strict?: boolean;
    /** `prosec eval`: the program's own asserts are scored; those of the programs it uses still raise. */
    readonly scoreAsserts?: boolean;
  } = {},
): Promise<LoadResult> {
  const cwd = options.cwd ?? process.cwd();
  const root = resolve(cwd, path);
  const compiled = new Map<string, Compiled>();
  const interfaces = new Map<string, ImportResolution>();
  const pending = [root];
  while (pending.length > 0) {
    const file = pending.shift()!;
    if (compiled.has(file)) continue;
    const { text: source, problem } = readProgram(file);
    const imports = new Map<string, string>();
    const resolveImport = importResolver(file, interfaces, cwd, (usePath, target) => imports.set(usePath, target));
    const result = problem
      ? { diagnostics: [problem], code: undefined }
      : lowerSource(source, portable(file, cwd), {
          resolveImport,
          strict: options.strict,
          inputHash: hashInputs(source, []),
          ...projectTools(file, cwd),
          ...(options.scoreAsserts === true && file === root ? { scoreAsserts: true } : {}),
        });
    compiled.set(file, {
      path: file,
      file: portable(file, cwd),
      source,
      diagnostics: result.diagnostics,
      code: result.code,
      imports,
    });
    // A missing import is the importer's diagnostic (P030), not a file to read.
    pending.push(...[...imports.values()].filter((target) => existsSync(target)));
  }
  const files = [...compiled.values()];
  if (files.some((file) => hasErrors(file.diagnostics))) return { files };
  const urls = new Map<string, string>();
  const runtime = pathToFileURL(join(buildRoot(), "runtime", "index.js")).href;
  // A cycle of imports is the importers' diagnostic (P033), so this recursion ends.
  const urlOf = (file: string): string => {
    const known = urls.get(file);
    if (known !== undefined) return known;
    const program = compiled.get(file)!;
    const specifiers = new Map<string, string>([["prosec/runtime", runtime]]);
    for (const [usePath, target] of program.imports) specifiers.set(moduleSpecifier(usePath), urlOf(target));
    const url = `data:text/javascript;base64,${Buffer.from(transpile(program.code!, specifiers)).toString("base64")}`;
    urls.set(file, url);
    return url;
  };
  const module = (await import(urlOf(files[0]!.path))) as ProgramModule;
  const hash = createHash("sha256").update(`prosec ${compilerVersion}`);
  for (const file of compiled.values()) hash.update("\0").update(file.code!);
  return { files, module, codeHash: hash.digest("hex").slice(0, 16) };
}

/** TypeScript to JavaScript, with import specifiers replaced through `specifiers`. */
function transpile(code: string, specifiers: ReadonlyMap<string, string>): string {
  return transform(pointImports(code, specifiers), { transforms: ["typescript"], disableESTransforms: true }).code;
}

/**
 * Rewrites the specifiers of the module's imports. They are all in its header (the lowerer writes
 * them, one a line, before anything else), so the scan stops at the first other line: a program's
 * text further down can hold a line that looks like an import without being touched.
 */
function pointImports(code: string, specifiers: ReadonlyMap<string, string>): string {
  const lines = code.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.startsWith("//")) continue;
    if (!line.startsWith("import ")) break;
    for (const [from, to] of specifiers) {
      const ending = ` from ${stringLiteral(from)};`;
      if (line.endsWith(ending)) lines[index] = `${line.slice(0, -ending.length)} from ${stringLiteral(to)};`;
    }
  }
  return lines.join("\n");
}
