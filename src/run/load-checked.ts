import { loadProgram, type ProgramModule } from "./load-program.js";

export interface LoadedProgram {
  readonly module: ProgramModule;
  readonly codeHash: string;
}

/**
 * Compiles `file` (and the programs it uses), or loads them from the project's module cache when
 * unchanged, printing its diagnostics; undefined when it has errors.
 */
export async function loadChecked(
  file: string,
  options: { readonly cwd: string; readonly strict: boolean; readonly scoreAsserts?: boolean },
): Promise<LoadedProgram | undefined> {
  const loaded = await loadProgram(file, { ...options, cache: true });
  const color = process.stderr.isTTY === true && !process.env["NO_COLOR"];
  // The code frames' module (and what it loads) only for a program with something to say.
  if (loaded.files.every((checked) => checked.diagnostics.length === 0)) return ready(loaded);
  const { formatDiagnostic } = await import("../diagnostics/format.js");
  for (const checked of loaded.files) {
    for (const diagnostic of checked.diagnostics)
      process.stderr.write(`${formatDiagnostic(checked.file, checked.source, diagnostic, { color })}\n`);
  }
  return ready(loaded);
}

function ready(loaded: Awaited<ReturnType<typeof loadProgram>>): LoadedProgram | undefined {
  if (loaded.module === undefined || loaded.codeHash === undefined) return undefined;
  return { module: loaded.module, codeHash: loaded.codeHash };
}
