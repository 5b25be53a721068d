/**
 * `prosec build`: every program named (files, or folders searched recursively) plus the local
 * programs they `use`, compiled to one module each. Nothing is written unless every program
 * compiles (and, with `typecheck`, every module type-checks); each write is atomic; a module is
 * rewritten only when its bytes change. An output whose line 2 holds the current input hash is
 * not rebuilt at all (that is what makes a no-op rebuild fast); `check` always recompiles.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { EXIT, exitCodeOfDiagnostics, type ExitCode } from "../exit-codes.js";
import { findPrograms } from "./files.js";
import { UsageError } from "../errors.js";
import { readProgram } from "./read-program.js";
import { compile, hashInputs, type ImportResolution } from "../compile.js";
import { hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { writeFileAtomically } from "../../runtime/stored-runs.js";
import { asEnvironmentError, EnvironmentError } from "../../runtime/host.js";
import { removeOrphanModules, removeStaleTemporaries } from "./stale-outputs.js";
import { committedCost, raisedParts } from "./bound-change.js";
import { importedFiles, importResolver, isProgramFile, resolveUse } from "./imports.js";
import { outputPath, portable, rootOf } from "./output-path.js";
import { findProjectRoot } from "./lockfile.js";
import { isRemoteUse, useStrings, VENDOR_FOLDER } from "../references.js";
import { typecheck, type TypeError } from "./typecheck.js";
import { projectTools } from "./mcp-servers.js";

export interface BuildOptions {
  /** Mirror the source tree under this folder instead of writing next to each program. */
  readonly outDir?: string;
  /** Write nothing; report outputs that are missing or differ from what would be written. */
  readonly check?: boolean;
  /** Type-check the modules (strict) against the runtime's types before writing. */
  readonly typecheck?: boolean;
  /** Treat warnings as errors. */
  readonly strict?: boolean;
  /** Rebuild even outputs whose input hash is unchanged. */
  readonly force?: boolean;
  readonly cwd?: string;
  /** Told what the build is doing at each step (the CLI shows it on a terminal when the build is slow). */
  readonly onProgress?: (step: string) => void;
}

/** `written`: new bytes on disk; `unchanged`: output already current; `stale`: `check` found it out of date. */
export type BuildStatus = "written" | "unchanged" | "stale" | "failed";

export interface BuiltProgram {
  /** The program's path relative to the working directory. */
  readonly file: string;
  readonly source: string;
  /** The module's path relative to the working directory. */
  readonly output: string;
  readonly status: BuildStatus;
  readonly diagnostics: readonly Diagnostic[];
  /** With `check`, for a stale module: how the change raises its cost bound (`sessions 4 → 6`), if it does. */
  readonly boundRaised?: readonly string[];
}

export interface BuildResult {
  readonly programs: readonly BuiltProgram[];
  /** TypeScript errors in emitted modules (with `typecheck`): compiler bugs. */
  readonly typeErrors: readonly TypeError[];
  /** How many modules were type-checked (with `typecheck`; none when a program has errors). */
  readonly typeChecked: number;
  /** Modules of programs that no longer exist, removed from the named folders (or `--out-dir`). */
  readonly removed: readonly string[];
  /** ok; failed: errors in programs or stale outputs (`check`); internal: emitted code does not type-check. */
  readonly exitCode: ExitCode;
}

interface Planned {
  readonly path: string;
  readonly root: string;
  readonly source: string;
  readonly output: string;
  readonly existing: string | undefined;
  readonly code: string | undefined;
  readonly fresh: boolean;
  readonly diagnostics: readonly Diagnostic[];
}

export async function build(paths: readonly string[], options: BuildOptions = {}): Promise<BuildResult> {
  const cwd = options.cwd ?? process.cwd();
  const queue = namedPrograms(paths, cwd);
  const planned = new Map<string, Planned>();
  const interfaces = new Map<string, ImportResolution>();
  while (queue.length > 0) {
    const { path, root } = queue.shift()!;
    if (planned.has(path)) continue;
    const { text: source, problem } = readProgram(path);
    for (const imported of importedFiles(path, source)) queue.push({ path: imported, root: rootFor(imported, root) });
    const targets = new Map(useStrings(source).map((use) => [use, resolveUse(path, use)] as const));
    const inputHash = hashInputs(
      source,
      [...targets.values()].map((target) =>
        "file" in target && isProgramFile(target.file) ? readProgram(target.file).text : "",
      ),
    );
    const output = outputPath(path, root, options.outDir);
    if (problem) {
      planned.set(path, {
        path,
        root,
        source,
        output,
        existing: undefined,
        code: undefined,
        fresh: false,
        diagnostics: [problem],
      });
      continue;
    }
    const existing = existsSync(output) ? readFileSync(output, "utf8") : undefined;
    if (
      !options.check &&
      !options.force &&
      existing !== undefined &&
      existing.split("\n", 2)[1] === `// prosec-input: ${inputHash}`
    ) {
      planned.set(path, { path, root, source, output, existing, code: existing, fresh: true, diagnostics: [] });
      continue;
    }
    const resolveImport = importResolver(path, interfaces, cwd);
    const shown = portable(path, cwd);
    options.onProgress?.(`compiling ${shown}`);
    const importSpecifiers = new Map(
      [...targets].flatMap(([use, target]) =>
        isRemoteUse(use) && "file" in target
          ? [[use, moduleFrom(output, outputPath(target.file, rootFor(target.file, root), options.outDir))] as const]
          : [],
      ),
    );
    const result = await compile(source, portable(path, root), {
      inputHash,
      resolveImport,
      importSpecifiers,
      strict: options.strict,
      ...projectTools(path, cwd),
      onStep: (step) => options.onProgress?.(`compiling ${shown}: ${step}`),
    });
    planned.set(path, {
      path,
      root,
      source,
      output,
      existing,
      code: result.code,
      fresh: false,
      diagnostics: result.diagnostics,
    });
  }

  const all = [...planned.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const failed = all.some((program) => hasErrors(program.diagnostics));
  if (!failed && options.typecheck)
    options.onProgress?.(`type-checking ${all.length} module${all.length === 1 ? "" : "s"}`);
  const typeErrors =
    !failed && options.typecheck
      ? await typecheck(all.map((program) => ({ path: program.output, code: program.code! })))
      : [];
  const programs: BuiltProgram[] = all.map((program) => {
    const status = statusOf(program, failed || typeErrors.length > 0, options);
    if (status === "written") write(program.output, program.code!, cwd);
    const raised = status === "stale" ? boundRaised(program) : [];
    return {
      file: portable(program.path, cwd),
      source: program.source,
      output: portable(program.output, cwd),
      status,
      diagnostics: program.diagnostics,
      ...(raised.length === 0 ? {} : { boundRaised: raised }),
    };
  });
  const stale = programs.some((program) => program.status === "stale");
  const removed = options.check || failed || typeErrors.length > 0 ? [] : tidyOutputs(paths, all, options, cwd);
  return {
    programs,
    removed: removed.map((module) => portable(module, cwd)),
    typeErrors,
    typeChecked: !failed && options.typecheck ? all.length : 0,
    exitCode: exitCodeOf(programs, stale, typeErrors),
  };
}

/**
 * After a build that wrote: the modules of deleted programs are removed from every named folder (or
 * from `--out-dir`), and the temporary files of killed builds from every output folder.
 */
function tidyOutputs(
  paths: readonly string[],
  built: readonly Planned[],
  options: BuildOptions,
  cwd: string,
): string[] {
  for (const folder of new Set(built.map((program) => dirname(program.output)))) removeStaleTemporaries(folder);
  const kept = new Set(built.map((program) => program.output));
  const roots = paths
    .map((path) => resolve(cwd, path))
    .filter((path) => existsSync(path) && statSync(path).isDirectory());
  if (roots.length === 0) return [];
  const outputs = options.outDir === undefined ? roots : [resolve(cwd, options.outDir)];
  return outputs.flatMap((folder) =>
    removeOrphanModules(folder, roots, options.outDir === undefined ? undefined : resolve(cwd, options.outDir), kept),
  );
}

function boundRaised(program: Planned): string[] {
  const before = program.existing === undefined ? undefined : committedCost(program.existing);
  const after = program.code === undefined ? undefined : committedCost(program.code);
  return before === undefined || after === undefined ? [] : raisedParts(before, after);
}

/**
 * The root a program's output path mirrors from: a vendored program's is its project's folder (so
 * that it is emitted once, at the same place, whichever program uses it), any other the importer's.
 */
function rootFor(file: string, importerRoot: string): string {
  const project = findProjectRoot(dirname(file));
  return project !== undefined && file.startsWith(join(project, VENDOR_FOLDER) + sep) ? project : importerRoot;
}

/** The specifier by which the module at `from` imports the module at `to` (both `.ts` paths). */
function moduleFrom(from: string, to: string): string {
  const path = relative(dirname(from), to).split(sep).join("/").replace(/\.ts$/, ".js");
  return path.startsWith(".") ? path : `./${path}`;
}

function write(path: string, code: string, cwd: string): void {
  try {
    writeFileAtomically(path, code);
  } catch (error) {
    const shown = portable(path, cwd);
    // A read-only folder or a full disk is the machine's (exit 9), as for every command; its path
    // would name the temporary file the atomic write made, so the module is named instead.
    const environment = asEnvironmentError(
      Object.assign(new Error((error as Error).message), { code: (error as NodeJS.ErrnoException).code }),
      `Writing ${shown}`,
      "build again",
    );
    if (environment instanceof EnvironmentError) throw environment;
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`cannot write ${shown} (${reason})`);
  }
}

function statusOf(program: Planned, blocked: boolean, options: BuildOptions): BuildStatus {
  if (hasErrors(program.diagnostics)) return "failed";
  const current = program.fresh || program.existing === program.code;
  if (options.check) return current ? "unchanged" : "stale";
  // Refusing to write: an error anywhere (or a module that does not type-check) leaves every file as it was.
  if (blocked || current) return "unchanged";
  return "written";
}

/** The programs the arguments name, each with the root its output path mirrors from. */
function namedPrograms(paths: readonly string[], cwd: string): Array<{ path: string; root: string }> {
  const found: Array<{ path: string; root: string }> = [];
  for (const path of paths) {
    const programs = findPrograms([path], cwd).map((file) => resolve(cwd, file));
    const absolute = resolve(cwd, path);
    const root = rootOf(absolute, statSync(absolute).isDirectory());
    for (const program of programs) found.push({ path: program, root });
  }
  if (found.length === 0) throw new UsageError("name at least one .prose file or folder");
  return found;
}

function exitCodeOf(programs: readonly BuiltProgram[], stale: boolean, typeErrors: readonly TypeError[]): ExitCode {
  const fromDiagnostics = exitCodeOfDiagnostics(programs.flatMap((program) => program.diagnostics));
  if (fromDiagnostics !== EXIT.ok) return fromDiagnostics;
  if (stale) return EXIT.failed;
  return typeErrors.length > 0 ? EXIT.internal : EXIT.ok;
}
