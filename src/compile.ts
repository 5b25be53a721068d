/**
 * One program, source text to formatted TypeScript: parse, analyse, lower, format. Never throws on
 * user input: a program with errors yields its diagnostics and no code.
 */
import { createHash } from "node:crypto";
import { hasErrors, sortDiagnostics, type Diagnostic } from "./diagnostics/diagnostic.js";
import { blameCompiler } from "./diagnostics/compiler-bug.js";
import { buildMessages } from "./diagnostics/messages.js";
import type { ProgramCost } from "../runtime/cost.js";
import type { StringLiteral } from "./ast.js";
import type { DeclaredMcpServers } from "./phases/2-analyze/index.js";
import { type Analysis, type ImportedProgram, programCost } from "./phases/2-analyze/index.js";
import { format, lower, type UnformattedModule } from "./phases/3-transform/index.js";
import { checkSource, type CheckResult } from "./pipeline.js";
import { compilerVersion } from "./version.js";

/** What a `use` leads to: the imported program's interface (and cost bound), or why there is none. */
export type ImportResolution = (ImportedProgram & { readonly cost?: ProgramCost }) | ImportProblem;

export interface ImportProblem {
  /**
   * `missing`: no such local file; `has-errors`: the program has errors; `not-locked`: a remote
   * reference that `prose.lock` does not record; `not-vendored` / `hash-mismatch`: its vendored copy
   * is missing or differs from the lockfile; `bad-lockfile`: `prose.lock` cannot be read; `cycle`:
   * the imported program leads back to the importer.
   */
  readonly problem:
    | "missing"
    | "has-errors"
    | "not-locked"
    | "not-vendored"
    | "hash-mismatch"
    | "bad-lockfile"
    | "git-native-lockfile"
    | "cycle";
  /** As shown to the user: the file looked for, the lockfile key, the lockfile's problem or the chain. */
  readonly resolved: string;
  /** For `missing`: the `use` path of a program beside the one looked for, one typo away (`./helper` for `./helpr`). */
  readonly suggestion?: string;
}

export interface CompileOptions {
  /** Resolves a `use` (checks calls against the imported program's inputs and outputs). */
  readonly resolveImport?: (path: string) => ImportResolution;
  /** The module each `use` imports, where it is not the default (`./x.prose` → `./x.prose.js`). */
  readonly importSpecifiers?: ReadonlyMap<string, string>;
  /** Written to the module's line 2; defaults to the hash of the compiler version and the source. */
  readonly inputHash?: string;
  /** Treat warnings as errors. */
  readonly strict?: boolean;
  /** The MCP servers `.mcp.json` declares for the program (`src/project/mcp-servers.ts`). */
  readonly mcpServers?: DeclaredMcpServers;
  /** The Agent Skills installed for the project (`runtime/tools/skills.ts`). */
  readonly installedSkills?: readonly string[];
  /** Told each step (`lowering`, `formatting 3/40`): a large program takes seconds per step. */
  readonly onStep?: (step: string) => void;
  /** `prosec eval`: the program's own asserts are scored checks that do not stop it (DIALECT.md, "Evals"). */
  readonly scoreAsserts?: boolean;
}

export interface CompileResult {
  /** The module (formatted by `compile`, not by `lowerSource`); absent when the program has errors. */
  readonly code?: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** `file` is the source path as users see it (relative, `/`-separated): it is written into the module. */
export async function compile(source: string, file: string, options: CompileOptions = {}): Promise<CompileResult> {
  const lowered = lowerSource(source, file, options);
  const module = lowered.module;
  if (module === undefined) return lowered;
  const formatted = await blameCompiler(file, () =>
    format(module, (piece, pieces) => options.onStep?.(`formatting ${piece}/${pieces}`)),
  );
  return { code: formatted, diagnostics: lowered.diagnostics };
}

/** Everything but formatting (benchmarks time the two apart): `code` is the unformatted module. */
export function lowerSource(
  source: string,
  file: string,
  options: CompileOptions = {},
): CompileResult & { readonly module?: UnformattedModule } {
  const checked = checkProgram(source, options, file);
  const analysis = checked.analysis;
  if (hasErrors(checked.diagnostics)) return { diagnostics: checked.diagnostics };
  const inputHash = options.inputHash ?? hashInputs(source, []);
  options.onStep?.("lowering");
  const module = blameCompiler(file, () =>
    lower(analysis, {
      source: file,
      sourceText: source,
      compilerVersion,
      inputHash,
      importSpecifiers: options.importSpecifiers,
      cost: boundOf(analysis, options),
      ...(options.scoreAsserts === true ? { scoreAsserts: true } : {}),
    }),
  );
  return { code: module.code, module, diagnostics: checked.diagnostics };
}

export interface CostResult {
  /** Absent when the program has errors. */
  readonly cost?: ProgramCost;
  readonly diagnostics: readonly Diagnostic[];
}

/** The program's static cost bound (what `prosec cost` prints and `prosec build` writes into the metadata). */
export function costOfSource(
  source: string,
  options: Omit<CompileOptions, "inputHash"> = {},
  file = "<source>",
): CostResult {
  const checked = checkProgram(source, options, file);
  const analysis = checked.analysis;
  if (!analysis || hasErrors(checked.diagnostics)) return { diagnostics: checked.diagnostics };
  return { cost: blameCompiler(file, () => boundOf(analysis, options)), diagnostics: checked.diagnostics };
}

/** The cost bound, with the bounds of the programs it imports (when their resolution has one). */
function boundOf(analysis: Analysis, options: Omit<CompileOptions, "inputHash">): ProgramCost {
  return programCost(analysis, {
    imported: (alias) => {
      const use = analysis.imports.get(alias);
      const resolution = use === undefined ? undefined : options.resolveImport?.(use.source.value);
      return resolution !== undefined && "inputs" in resolution ? resolution.cost : undefined;
    },
  });
}

/**
 * Parse and analyse, with local imports resolved and calls to them checked: every diagnostic
 * `check` reports, and exactly those that stop `build` and `run`.
 */
export function checkProgram(
  source: string,
  options: Omit<CompileOptions, "inputHash" | "importSpecifiers"> = {},
  file = "<source>",
): CheckResult {
  const problems = new Map<string, ImportProblem>();
  const resolveImport = (path: string): ImportedProgram | undefined => {
    const resolution = options.resolveImport?.(path);
    if (resolution === undefined || !("problem" in resolution)) return resolution;
    problems.set(path, resolution);
    return undefined;
  };
  const checked = blameCompiler(file, () =>
    checkSource(source, {
      resolveImport,
      strict: options.strict,
      ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
      ...(options.installedSkills === undefined ? {} : { installedSkills: options.installedSkills }),
    }),
  );
  const importDiagnostics = [...checked.analysis.imports.values()].flatMap((use) => {
    const problem = problems.get(use.source.value);
    return problem === undefined ? [] : [importDiagnostic(use.source, problem)];
  });
  return { ...checked, diagnostics: sortDiagnostics([...checked.diagnostics, ...importDiagnostics]) };
}

/** The hash on a module's line 2: compiler version, the source and the sources it imports. */
export function hashInputs(source: string, importedSources: readonly string[]): string {
  const hash = createHash("sha256").update(`prosec ${compilerVersion}\0`).update(source);
  for (const imported of importedSources) hash.update("\0").update(imported);
  return hash.digest("hex");
}

function importDiagnostic(use: StringLiteral, problem: ImportProblem): Diagnostic {
  const { loc, value } = use;
  switch (problem.problem) {
    case "missing":
      return buildMessages.importNotFound(loc, value, problem.resolved, problem.suggestion);
    case "has-errors":
      return buildMessages.importHasErrors(loc, value);
    case "not-locked":
      return buildMessages.importNotLocked(loc, value, problem.resolved);
    case "not-vendored":
      return buildMessages.vendoredCopyMissing(loc, value, problem.resolved);
    case "hash-mismatch":
      return buildMessages.vendoredCopyDiffers(loc, value, problem.resolved);
    case "bad-lockfile":
      return buildMessages.lockfileUnreadable(loc, problem.resolved);
    case "git-native-lockfile":
      return buildMessages.lockfileGitNative(loc, problem.resolved);
    case "cycle":
      return buildMessages.importCycle(loc, problem.resolved);
  }
}
