import type { BuildResult } from "../project/build.js";
import { formatDiagnostic } from "../diagnostics/format.js";

/** Prints a build's diagnostics, stale outputs and type errors, then its summary line. */
export function reportBuild(result: BuildResult, check: boolean, summaryPrefix = ""): void {
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
  for (const program of result.programs) {
    for (const diagnostic of program.diagnostics)
      process.stdout.write(`${formatDiagnostic(program.file, program.source, diagnostic, { color })}\n`);
  }
  for (const program of result.programs) {
    if (program.status !== "stale") continue;
    process.stdout.write(`stale: ${program.output} (run \`prosec build\`)\n`);
    if (program.boundRaised !== undefined)
      process.stdout.write(`  the change raises its cost bound: ${program.boundRaised.join(", ")}\n`);
  }
  for (const module of result.removed) process.stdout.write(`removed: ${module} (its program is gone)\n`);
  if (result.typeErrors.length > 0) {
    process.stderr.write(
      "prosec: internal compiler error: a generated module does not type-check (nothing was written). Please report this.\n",
    );
    for (const error of result.typeErrors) process.stderr.write(`  ${error.path}:${error.line}: ${error.message}\n`);
  }
  process.stdout.write(`${summaryPrefix}${summary(result, check)}\n`);
}

function summary(result: BuildResult, check: boolean): string {
  const count = (status: string) => result.programs.filter((program) => program.status === status).length;
  const all = result.programs.flatMap((program) => program.diagnostics);
  const errors = all.filter((diagnostic) => diagnostic.severity === "error").length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const parts = check
    ? [`${count("unchanged")} up to date`, `${count("stale")} stale`]
    : [`${count("written")} written`, `${count("unchanged")} unchanged`];
  if (result.removed.length > 0) parts.push(`${result.removed.length} removed`);
  if (errors > 0 || all.length > 0) parts.push(plural(errors, "error"), plural(all.length - errors, "warning"));
  if (errors > 0 && !check) parts.push("nothing written");
  if (result.typeChecked > 0 && result.typeErrors.length === 0)
    parts.push(`${plural(result.typeChecked, "module")} type-checked`);
  return `${plural(result.programs.length, "program")}: ${parts.join(", ")}`;
}
