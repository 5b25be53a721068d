/**
 * Local `use "./x.prose"` imports: the file a path names, and that program's interface (its inputs
 * and outputs) for checking calls to it.
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { readProgram } from "../cli/read-program.js";
import type { ImportResolution } from "../compile.js";
import { hasErrors } from "../diagnostics/diagnostic.js";
import type { Analysis, ImportedProgram } from "../phases/2-analyze/index.js";
import { checkSource } from "../pipeline.js";
import { portable } from "./output-path.js";

/** `use "./x"` paths, found without parsing (for the input hash and the files to visit; analysis does the real work). */
export function localImports(source: string): string[] {
  return [...source.matchAll(/^[ \t]*use[ \t]+"(\.\.?\/[^"\n]*)"/gm)].map((match) => match[1]!);
}

/** The `.prose` file a `use` path names, relative to the importing program. */
export function importedFile(importer: string, usePath: string): string {
  return resolve(dirname(importer), usePath.endsWith(".prose") ? usePath : `${usePath}.prose`);
}

/** How `importer` resolves its local `use` paths: to the imported programs' interfaces, read from disk. */
export function importResolver(
  importer: string,
  cache: Map<string, ImportResolution>,
  cwd: string,
): (usePath: string) => ImportResolution {
  return (usePath) => importInterface(importedFile(importer, usePath), cache, cwd);
}

/** The inputs and outputs of an imported program, from its own analysis (cached per file). */
export function importInterface(file: string, cache: Map<string, ImportResolution>, cwd: string): ImportResolution {
  const known = cache.get(file);
  if (known) return known;
  let resolution: ImportResolution;
  if (!existsSync(file)) {
    resolution = { problem: "missing", resolved: portable(file, cwd) };
  } else {
    const program = readProgram(file);
    const checked = checkSource(program.text);
    resolution =
      program.problem === undefined && !hasErrors(checked.diagnostics)
        ? interfaceOf(checked.analysis)
        : { problem: "has-errors", resolved: portable(file, cwd) };
  }
  cache.set(file, resolution);
  return resolution;
}

/** A program's inputs and outputs, from its source (`undefined`: there is no such file, shown to the user as `shownAs`). */
export function programInterface(source: string | undefined, shownAs: string): ImportResolution {
  if (source === undefined) return { problem: "missing", resolved: shownAs };
  const checked = checkSource(source);
  return !hasErrors(checked.diagnostics) ? interfaceOf(checked.analysis) : { problem: "has-errors", resolved: shownAs };
}

/** What a call of a program may pass (its parameters; those with a default may be left out) and read. */
function interfaceOf(analysis: Analysis): ImportedProgram {
  const parameters = analysis.parameters;
  return {
    inputs: parameters.map((input) => input.name.name),
    optionalInputs: parameters.filter((input) => input.default !== null).map((input) => input.name.name),
    outputs: [...analysis.outputs],
  };
}
