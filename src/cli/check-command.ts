import type { Argv } from "yargs";
import type { FileDiagnostics } from "../diagnostics/diagnostic.js";
import { formatDiagnostic, toJson } from "../diagnostics/format.js";
import { resolve } from "node:path";
import { importedFiles, importResolver } from "../project/imports.js";
import { checkProgram, type ImportResolution } from "../compile.js";
import { exitCodeOfDiagnostics, type ExitCode } from "../exit-codes.js";
import { displayPath, findPrograms } from "../project/files.js";
import { withFormat, type FormatArguments } from "./output-format.js";
import { readProgram } from "../project/read-program.js";
import { projectTools } from "../project/mcp-servers.js";
import { jsonText } from "../json-text.js";

export interface CheckArguments extends Pick<FormatArguments, "format"> {
  readonly paths: readonly string[];
  readonly strict: boolean;
}

export function checkCommand(yargs: Argv): Argv {
  return yargs.command<CheckArguments>(
    "check <paths..>",
    "Check .prose files (folders are searched recursively) and print their diagnostics",
    (command) =>
      withFormat(
        command.positional("paths", { type: "string", array: true, demandOption: true, describe: "files or folders" }),
        "the diagnostics of every file",
      ).option("strict", { type: "boolean", default: false, describe: "treat warnings as errors" }),
    (argv) => {
      process.exitCode = runCheck(argv);
    },
  );
}

/** Checks every program and prints the result; returns the exit code (ok clean, failed errors). */
export function runCheck(argv: CheckArguments): ExitCode {
  const results = checkPrograms(argv.paths, { strict: argv.strict });
  if (argv.format === "json") {
    process.stdout.write(`${jsonText(toJson(results), 2)}\n`);
  } else {
    const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
    for (const { file, source, diagnostics } of results) {
      for (const diagnostic of diagnostics)
        process.stdout.write(`${formatDiagnostic(file, source, diagnostic, { color })}\n`);
    }
    process.stdout.write(`${summary(results)}\n`);
  }
  return exitCodeOfDiagnostics(results.flatMap((result) => result.diagnostics));
}

/**
 * The programs named and the programs they `use` (vendored ones included), each checked as `build` checks it: with
 * its imports resolved, so a call's inputs and outputs are checked here too (E026, E027 ...).
 */
export function checkPrograms(
  paths: readonly string[],
  options: { readonly strict?: boolean; readonly cwd?: string } = {},
): FileDiagnostics[] {
  const cwd = options.cwd ?? process.cwd();
  const queue = findPrograms(paths, cwd).map((file) => resolve(cwd, file));
  const interfaces = new Map<string, ImportResolution>();
  const results = new Map<string, FileDiagnostics>();
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (results.has(path)) continue;
    const { text: source, problem } = readProgram(path);
    const resolveImport = importResolver(path, interfaces, cwd);
    const file = displayPath(path, cwd);
    const diagnostics = problem
      ? [problem]
      : checkProgram(source, { resolveImport, strict: options.strict, ...projectTools(path, cwd) }, file).diagnostics;
    results.set(path, { file, source, diagnostics });
    queue.push(...importedFiles(path, source));
  }
  return [...results.values()];
}

function summary(results: readonly FileDiagnostics[]): string {
  const all = results.flatMap((result) => result.diagnostics);
  const errors = all.filter((diagnostic) => diagnostic.severity === "error").length;
  const warnings = all.length - errors;
  const files = `${results.length} ${results.length === 1 ? "file" : "files"}`;
  return `${files} checked: ${errors} ${errors === 1 ? "error" : "errors"}, ${warnings} ${warnings === 1 ? "warning" : "warnings"}`;
}
