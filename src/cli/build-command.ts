import type { Argv } from "yargs";
import { build, type BuildResult } from "../build/build.js";
import { formatDiagnostic } from "../diagnostics/format.js";
import { Progress } from "./progress.js";

export interface BuildArguments {
  readonly paths: readonly string[];
  readonly "out-dir"?: string;
  readonly check: boolean;
  readonly typecheck: boolean;
  readonly strict: boolean;
  readonly force: boolean;
}

export function buildCommand(yargs: Argv): Argv {
  return yargs.command<BuildArguments>(
    "build <paths..>",
    "Compile .prose files (folders are searched recursively) to TypeScript modules: foo.prose → foo.prose.ts",
    (command) =>
      command
        .positional("paths", { type: "string", array: true, demandOption: true, describe: "files or folders" })
        .option("out-dir", { type: "string", requiresArg: true, describe: "write modules under this folder, mirroring the source tree" })
        .option("check", { type: "boolean", default: false, describe: "write nothing; exit 1 if any output is missing or stale (for CI)" })
        .option("typecheck", { type: "boolean", default: false, describe: "type-check the modules (strict) against the runtime's types" })
        .option("strict", { type: "boolean", default: false, describe: "treat warnings as errors" })
        .option("force", { type: "boolean", default: false, describe: "rebuild outputs whose inputs did not change" }),
    async (argv) => {
      const progress = new Progress(process.stderr);
      const result = await build(argv.paths, { outDir: argv["out-dir"], check: argv.check, typecheck: argv.typecheck, strict: argv.strict, force: argv.force, onProgress: (step) => progress.update(step) }).finally(() => progress.done());
      report(result, argv.check);
      process.exitCode = result.exitCode;
    },
  );
}

function report(result: BuildResult, check: boolean): void {
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
  for (const program of result.programs) {
    for (const diagnostic of program.diagnostics) process.stdout.write(`${formatDiagnostic(program.file, program.source, diagnostic, { color })}\n`);
  }
  for (const program of result.programs) if (program.status === "stale") process.stdout.write(`stale: ${program.output} (run \`prosec build\`)\n`);
  if (result.typeErrors.length > 0) {
    process.stderr.write("prosec: internal compiler error: a generated module does not type-check (nothing was written). Please report this.\n");
    for (const error of result.typeErrors) process.stderr.write(`  ${error.path}:${error.line}: ${error.message}\n`);
  }
  process.stdout.write(`${summary(result, check)}\n`);
}

function summary(result: BuildResult, check: boolean): string {
  const count = (status: string) => result.programs.filter((program) => program.status === status).length;
  const all = result.programs.flatMap((program) => program.diagnostics);
  const errors = all.filter((diagnostic) => diagnostic.severity === "error").length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const parts = check ? [`${count("unchanged")} up to date`, `${count("stale")} stale`] : [`${count("written")} written`, `${count("unchanged")} unchanged`];
  if (errors > 0 || all.length > 0) parts.push(plural(errors, "error"), plural(all.length - errors, "warning"));
  if (errors > 0 && !check) parts.push("nothing written");
  return `${plural(result.programs.length, "program")}: ${parts.join(", ")}`;
}
