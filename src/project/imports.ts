/**
 * What a `use` leads to: a local path names a file relative to the importing program; a registry
 * reference or URL names the vendored copy that `prose.lock` records (never the network). Then that
 * program's interface (its inputs and outputs) for checking calls to it, with its cost bound for the
 * caller's.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isLinkToOtherFile, readProgram } from "./read-program.js";
import type { ImportProblem, ImportResolution } from "../compile.js";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { type Analysis, closest, type ImportedProgram, programCost } from "../phases/2-analyze/index.js";
import { checkSource } from "../pipeline.js";
import { findProjectRoot, LockfileError, readLockfile } from "./lockfile.js";
import { isLocalUse, refKey, useStrings, VENDOR_FOLDER, vendoredPath } from "../references.js";
import { portable } from "./output-path.js";

/** The file a `use` resolves to, or why it resolves to none. */
export type UseTarget = { readonly file: string } | ImportProblem;

/**
 * Whether a program can be read at `file`: a regular file. A folder, fifo or device at a `use` path is
 * no program (reading a fifo would block for ever), nor a link to a file not named `*.prose`
 * (read-program.ts): the importer's P030, as a missing file is.
 */
export function isProgramFile(file: string): boolean {
  try {
    return statSync(file).isFile() && !isLinkToOtherFile(file);
  } catch {
    return false;
  }
}

/** The `.prose` file a local `use` path names, relative to the importing program. */
export function importedFile(importer: string, usePath: string): string {
  return resolve(dirname(importer), usePath.endsWith(".prose") ? usePath : `${usePath}.prose`);
}

/**
 * The file a `use` names. A remote one must be in the nearest `prose.lock` above the importer and
 * its vendored copy must hash as recorded there.
 */
export function resolveUse(importer: string, usePath: string): UseTarget {
  if (isLocalUse(usePath)) return { file: importedFile(importer, usePath) };
  const key = refKey(usePath);
  const root = findProjectRoot(dirname(importer));
  if (root === undefined) return { problem: "not-locked", resolved: key };
  let locked;
  try {
    locked = readLockfile(root).programs[key];
  } catch (error) {
    if (error instanceof LockfileError)
      return { problem: error.code === "P042" ? "git-native-lockfile" : "bad-lockfile", resolved: error.message };
    throw error;
  }
  if (locked === undefined) return { problem: "not-locked", resolved: key };
  const file = join(root, VENDOR_FOLDER, vendoredPath(key));
  if (!isProgramFile(file)) return { problem: "not-vendored", resolved: file };
  if (sha256(readFileSync(file)) !== locked.sha256) return { problem: "hash-mismatch", resolved: file };
  return { file };
}

/** The files a program's `use`s resolve to (those that resolve and exist): the programs to visit next. */
export function importedFiles(importer: string, source: string): string[] {
  return useStrings(source).flatMap((usePath) => {
    const target = resolveUse(importer, usePath);
    return "file" in target && isProgramFile(target.file) ? [target.file] : [];
  });
}

/**
 * How `importer` resolves its `use`s: to the imported programs' interfaces (read from disk), or a
 * problem, a cycle of imports included.
 */
export function importResolver(
  importer: string,
  cache: Map<string, ImportResolution>,
  cwd: string,
  onResolved?: (usePath: string, file: string) => void,
): (usePath: string) => ImportResolution {
  return (usePath) => {
    const target = resolveUse(importer, usePath);
    if (!("file" in target)) return shownProblem(target, cwd);
    onResolved?.(usePath, target.file);
    const cycle = importCycle(importer, target.file);
    if (cycle) return { problem: "cycle", resolved: cycle.map((file) => portable(file, cwd)).join(" → ") };
    const resolution = importInterface(target.file, cache, cwd);
    if (!("problem" in resolution) || resolution.problem !== "missing" || !isLocalUse(usePath)) return resolution;
    const suggestion = nearbyProgram(usePath, target.file);
    return suggestion === undefined ? resolution : { ...resolution, suggestion };
  };
}

/** A local `use` path one typo from a program in the folder the missing one would be in: `./helper` for `./helpr`. */
function nearbyProgram(usePath: string, missing: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dirname(missing), { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(".prose"))
      .map((entry) => entry.name.slice(0, -".prose".length));
  } catch {
    return undefined;
  }
  const close = closest(basename(missing, ".prose"), names);
  if (close === undefined) return undefined;
  const slash = usePath.lastIndexOf("/");
  return `${usePath.slice(0, slash + 1)}${close}${usePath.endsWith(".prose") ? ".prose" : ""}`;
}

/** The inputs and outputs of an imported program, from its own analysis (cached per file). */
export function importInterface(file: string, cache: Map<string, ImportResolution>, cwd: string): ImportResolution {
  const known = cache.get(file);
  if (known) return known;
  const shownAs = portable(file, cwd);
  const program = isProgramFile(file) ? readProgram(file) : undefined;
  const checked = program === undefined || program.problem !== undefined ? undefined : checkSource(program.text);
  let resolution: ImportResolution;
  if (program === undefined) resolution = { problem: "missing", resolved: shownAs };
  // Bytes that are not a program's text (invalid UTF-8, a binary file) make the import unusable.
  else if (checked === undefined || hasErrors(checked.diagnostics))
    resolution = { problem: "has-errors", resolved: shownAs };
  else {
    const analysis = checked.analysis;
    const found = interfaceOf(analysis);
    // Without a bound until it has one: a cycle of imports then reads as "not known" instead of looping.
    cache.set(file, found);
    const imported = (alias: string) => {
      const use = analysis.imports.get(alias);
      const target = use === undefined ? undefined : resolveUse(file, use.source.value);
      const nested = target === undefined || !("file" in target) ? undefined : importInterface(target.file, cache, cwd);
      return nested === undefined || "problem" in nested ? undefined : nested.cost;
    };
    resolution = { ...found, cost: programCost(analysis, { imported }) };
  }
  cache.set(file, resolution);
  return resolution;
}

/** A program's inputs and outputs, from its source (`undefined`: there is no such file, shown to the user as `shownAs`). */
export function programInterface(source: string | undefined, shownAs: string): ImportResolution {
  if (source === undefined) return { problem: "missing", resolved: shownAs };
  const checked = checkSource(source);
  return !hasErrors(checked.diagnostics)
    ? { ...interfaceOf(checked.analysis), cost: programCost(checked.analysis) }
    : { problem: "has-errors", resolved: shownAs };
}

/**
 * What a call of a program may pass and read: its parameters (those with a default may be left out)
 * and its mid-program inputs, which a caller may answer ahead and may leave out (DIALECT.md).
 */
function interfaceOf(analysis: Analysis): ImportedProgram {
  const parameters = analysis.parameters;
  const midProgram = analysis.runtimeInputs.map((input) => input.name.name);
  return {
    inputs: [...parameters.map((input) => input.name.name), ...midProgram],
    optionalInputs: [
      ...parameters.filter((input) => input.default !== null).map((input) => input.name.name),
      ...midProgram,
    ],
    outputs: [...analysis.outputs],
  };
}

/**
 * The chain `importer → target → … → importer` when `target` leads back to `importer` through its
 * own `use`s (only those that resolve), else undefined.
 */
export function importCycle(importer: string, target: string): string[] | undefined {
  const visited = new Set<string>();
  const walk = (file: string, chain: readonly string[]): string[] | undefined => {
    if (file === importer) return [...chain, file];
    if (visited.has(file) || !isProgramFile(file)) return undefined;
    visited.add(file);
    let source: string;
    try {
      source = readFileSync(file, "utf8");
    } catch {
      // A file that cannot be read leads nowhere; reading it again reports why.
      return undefined;
    }
    for (const usePath of useStrings(source)) {
      const next = resolveUse(file, usePath);
      if (!("file" in next)) continue;
      const found = walk(next.file, [...chain, file]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(target, [importer]);
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A problem with the file it names, if any, shown relative to `cwd`. */
export function shownProblem(problem: ImportProblem, cwd: string): ImportProblem {
  return problem.problem === "not-vendored" || problem.problem === "hash-mismatch"
    ? { ...problem, resolved: portable(problem.resolved, cwd) }
    : problem;
}
