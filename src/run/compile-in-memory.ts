/**
 * The cold half of loading a program: it and the programs it `use`s (local and vendored) compiled in
 * memory to JavaScript. Each module's types are stripped (sucrase: the TypeScript compiler would stay
 * in memory for the whole run, 130 MB of it) and its imports pointed at the runtime this compiler
 * ships and at the modules of the programs it calls. Imported only on a miss of the module cache
 * (module-cache.ts), so a run whose program is unchanged never loads the compiler.
 */
import { resolve } from "node:path";
import { transform } from "sucrase";
import { importResolver, isProgramFile } from "../project/imports.js";
import { projectTools } from "../project/mcp-servers.js";
import { portable } from "../project/output-path.js";
import { hashInputs, lowerSource, type ImportResolution } from "../compile.js";
import { moduleSpecifier, stringLiteral } from "../phases/3-transform/index.js";
import { readProgram } from "../project/read-program.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";

export interface CheckedFile {
  /** Relative to the working directory, `/`-separated. */
  readonly file: string;
  readonly source: string;
  readonly diagnostics: readonly Diagnostic[];
}

export interface CompiledFile extends CheckedFile {
  readonly path: string;
  readonly code: string | undefined;
  /** `use` path → the imported program's absolute path. */
  readonly imports: ReadonlyMap<string, string>;
}

/**
 * The program at `path` and every program it imports, by absolute path (the program first). With
 * `scoreAsserts` (`prosec eval`) the program's own asserts are scored; those of the programs it uses
 * still raise.
 */
export function compileClosure(
  path: string,
  cwd: string,
  options: { readonly strict?: boolean; readonly scoreAsserts?: boolean },
): Map<string, CompiledFile> {
  const { strict } = options;
  const root = resolve(cwd, path);
  const compiled = new Map<string, CompiledFile>();
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
          strict,
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
    pending.push(...[...imports.values()].filter((target) => isProgramFile(target)));
  }
  return compiled;
}

/**
 * The JavaScript of each compiled module, bottom-up: `place(file, javascript)` stores one module and
 * returns the URL its importers load it by. A cycle of imports is the importers' diagnostic (P033),
 * so this recursion ends.
 */
export function linkModules(
  compiled: ReadonlyMap<string, CompiledFile>,
  runtimeUrl: string,
  place: (file: string, javascript: string) => string,
): string {
  const urls = new Map<string, string>();
  const urlOf = (file: string): string => {
    const known = urls.get(file);
    if (known !== undefined) return known;
    const program = compiled.get(file)!;
    const specifiers = new Map<string, string>([["prosec/runtime", runtimeUrl]]);
    for (const [usePath, target] of program.imports) specifiers.set(moduleSpecifier(usePath), urlOf(target));
    const url = place(file, transpile(program.code!, specifiers));
    urls.set(file, url);
    return url;
  };
  return urlOf(compiled.keys().next().value!);
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
