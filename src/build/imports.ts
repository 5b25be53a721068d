/**
 * Local `use "./x.prose"` imports: the file a path names, and that program's interface (its inputs
 * and outputs) for checking calls to it, with its cost bound for the caller's.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ImportResolution } from "../compile.js";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { programCost } from "../phases/2-analyze/cost/analyze.js";
import { checkSource } from "../pipeline.js";
import { portable } from "./output-path.js";

/** The `.prose` file a `use` path names, relative to the importing program. */
export function importedFile(importer: string, usePath: string): string {
  return resolve(dirname(importer), usePath.endsWith(".prose") ? usePath : `${usePath}.prose`);
}

/** The inputs and outputs of an imported program, from its own analysis (cached per file). */
export function importInterface(file: string, cache: Map<string, ImportResolution>, cwd: string): ImportResolution {
  const known = cache.get(file);
  if (known) return known;
  let resolution: ImportResolution;
  if (!existsSync(file)) {
    resolution = { problem: "missing", resolved: portable(file, cwd) };
  } else {
    const checked = checkSource(readFileSync(file, "utf8"));
    const analysis = checked.analysis;
    if (analysis === undefined || hasErrors(checked.diagnostics)) {
      resolution = { problem: "has-errors", resolved: portable(file, cwd) };
    } else {
      const program = { inputs: analysis.parameters.map((input) => input.name.name), outputs: [...analysis.outputs] };
      // Without a bound until it has one: a cycle of imports then reads as "not known" instead of looping.
      cache.set(file, program);
      const imported = (alias: string) => {
        const use = analysis.imports.get(alias);
        const nested = use === undefined ? undefined : importInterface(importedFile(file, use.source.value), cache, cwd);
        return nested === undefined || "problem" in nested ? undefined : nested.cost;
      };
      resolution = { ...program, cost: programCost(analysis, { imported }) };
    }
  }
  cache.set(file, resolution);
  return resolution;
}
