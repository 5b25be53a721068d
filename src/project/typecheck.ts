/**
 * `--typecheck`: the emitted modules, type-checked (strict, and with the strictest flags teams add) against the runtime's own types in an
 * in-memory ts-morph project. A TypeScript error in generated code is a compiler bug, never the
 * user's: callers report it as an internal compiler error.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

export interface EmittedModule {
  /** Absolute path the module is (or would be) written to. */
  readonly path: string;
  readonly code: string;
}

export interface TypeError {
  readonly path: string;
  readonly line: number;
  readonly message: string;
}

/** The runtime's entry point: its TypeScript source in the repository, its declarations in a package. */
function runtimeEntry(): string {
  for (const candidate of ["../../runtime/index.ts", "../../runtime/index.d.ts"]) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path.replace(/\.(d\.)?ts$/, "");
  }
  throw new Error("internal: cannot find the runtime's types next to the compiler");
}

/**
 * The folder holding the compiler's own `@types/node` (the runtime's types mention Node's), so
 * that checking works from any working directory; undefined when it is not installed.
 */
function typeRoots(): string[] | undefined {
  try {
    return [dirname(dirname(createRequire(import.meta.url).resolve("@types/node/package.json")))];
  } catch {
    return undefined;
  }
}

export interface TypecheckOptions {
  /**
   * Also `noUnusedLocals` and `noUnusedParameters`. Off for `--typecheck`, which checks that a
   * program's module compiles; the generated-code lint test holds every module, a large one's too, to them.
   */
  readonly noUnused?: boolean;
}

type TsMorph = typeof import("ts-morph");

/**
 * One project per set of flags, kept for the process: its lib files, Node's types and the runtime's
 * declarations are read, parsed and bound once, not for every check: that was nearly all of a small
 * module's check (about 2 s of CPU each time; 30–50 ms once the project is warm), and `build --watch
 * --typecheck` and the test suites check many. A check adds its modules
 * and takes them out again, with every file they brought in from disk but the runtime's and the
 * packages': a module's neighbour may have changed by the next check.
 */
const projects = new Map<boolean, Promise<import("ts-morph").Project>>();

function projectFor(noUnused: boolean): Promise<import("ts-morph").Project> {
  let project = projects.get(noUnused);
  if (project === undefined) {
    project = import("ts-morph").then((tsMorph) => newProject(tsMorph, noUnused));
    projects.set(noUnused, project);
  }
  return project;
}

let runtimeFolder: string | undefined;

/** The files a project keeps between checks: the runtime's declarations and the packages' types. */
function isKept(path: string): boolean {
  runtimeFolder ??= `${dirname(runtimeEntry())}/`;
  return path.startsWith(runtimeFolder) || path.includes("/node_modules/");
}

function newProject({ Project, ts }: TsMorph, noUnused: boolean): import("ts-morph").Project {
  const roots = typeRoots();
  return new Project({
    skipAddingFilesFromTsConfig: true,
    compilerOptions: {
      // The strictest flags teams use: generated modules must pass wherever they are committed.
      strict: true,
      noUnusedLocals: noUnused,
      noUnusedParameters: noUnused,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      noPropertyAccessFromIndexSignature: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ["lib.es2023.d.ts"],
      typeRoots: roots,
      types: roots ? ["node"] : [],
      skipLibCheck: true,
      noEmit: true,
      paths: { "prosec/runtime": [runtimeEntry()] },
    },
  });
}

/** Type-checks the modules together (they may import each other); returns every error, sorted. */
export async function typecheck(
  modules: readonly EmittedModule[],
  options: TypecheckOptions = {},
): Promise<TypeError[]> {
  const { ts } = await import("ts-morph");
  const project = await projectFor(options.noUnused === true);
  // From here to the end nothing awaits: no other check can add its modules to this one's.
  const files = modules.map((module) => project.createSourceFile(module.path, module.code, { overwrite: true }));
  try {
    const errors: TypeError[] = [];
    for (const file of files) {
      for (const diagnostic of file.getPreEmitDiagnostics()) {
        if (diagnostic.getCategory() !== ts.DiagnosticCategory.Error) continue;
        const source = diagnostic.getSourceFile();
        const message = ts.flattenDiagnosticMessageText(diagnostic.compilerObject.messageText, "\n");
        errors.push({
          path: source?.getFilePath() ?? file.getFilePath(),
          line: diagnostic.getLineNumber() ?? 0,
          message,
        });
      }
    }
    return errors.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  } finally {
    // The program's files, not only the project's: a neighbour a module imports is in the program alone.
    for (const { fileName } of project.getProgram().compilerObject.getSourceFiles()) {
      const file = isKept(fileName) ? undefined : project.getSourceFile(fileName);
      if (file !== undefined) project.removeSourceFile(file);
    }
  }
}
