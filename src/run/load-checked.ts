import { formatDiagnostic } from "../diagnostics/format.js";
import { loadProgram, type ProgramModule } from "./load-program.js";

export interface LoadedProgram {
  readonly module: ProgramModule;
  readonly codeHash: string;
}

/** Compiles `file` (and the programs it uses) in memory, printing its diagnostics; undefined when it has errors. */
export async function loadChecked(
  file: string,
  options: { readonly cwd: string; readonly strict: boolean; readonly scoreAsserts?: boolean },
): Promise<LoadedProgram | undefined> {
  const loaded = await loadProgram(file, options);
  const color = process.stderr.isTTY === true && !process.env["NO_COLOR"];
  for (const checked of loaded.files) {
    for (const diagnostic of checked.diagnostics)
      process.stderr.write(`${formatDiagnostic(checked.file, checked.source, diagnostic, { color })}\n`);
  }
  if (loaded.module === undefined || loaded.codeHash === undefined) return undefined;
  return { module: loaded.module, codeHash: loaded.codeHash };
}
