/**
 * `prosec graph FILE`: the program's control flow with each node's static cost bound and its
 * critical paths, as a Mermaid flowchart (default: GitHub renders it), DOT or SVG; `--out` writes
 * the file whole (never half of it).
 */
import { writeFileSync, renameSync, rmSync } from "node:fs";
import type { Argv } from "yargs";
import { importedFile, importInterface } from "../project/imports.js";
import type { ImportResolution } from "../compile.js";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { formatDiagnostic } from "../diagnostics/format.js";
import { graphOfSource, toDot, toMermaid, toSvg } from "../graph/index.js";
import { EXIT, exitCodeOfDiagnostics } from "../exit-codes.js";
import { readProgram } from "../project/read-program.js";

export const GRAPH_FORMATS = ["mermaid", "dot", "svg"] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

export interface GraphArguments {
  readonly file: string;
  readonly format: GraphFormat;
  readonly out?: string;
  readonly strict: boolean;
}

export function graphCommand(yargs: Argv): Argv {
  return yargs.command<GraphArguments>(
    "graph <file>",
    "Draw a program's control flow, each step's cost bound and its critical paths (Mermaid, DOT or SVG)",
    (command) =>
      command
        .positional("file", { type: "string", demandOption: true, describe: "a .prose file" })
        .option("format", {
          choices: GRAPH_FORMATS,
          default: "mermaid" as const,
          describe: "mermaid (GitHub renders it in markdown), dot (Graphviz) or svg",
        })
        .option("out", { type: "string", describe: "write to this file instead of standard output" })
        .option("strict", { type: "boolean", default: false, describe: "treat warnings as errors" })
        .example("$0 graph review.prose > review.mmd", "a Mermaid flowchart")
        .example("$0 graph review.prose --format svg --out r.svg", "an SVG picture"),
    (argv) => {
      process.exitCode = runGraph(argv);
    },
  );
}

export function runGraph(argv: GraphArguments): number {
  const file = argv.file;
  const { text: source, problem } = readProgram(file);
  const color = process.stderr.isTTY === true && !process.env["NO_COLOR"];
  const interfaces = new Map<string, ImportResolution>();
  const result =
    problem !== undefined
      ? { diagnostics: [problem] }
      : graphOfSource(
          source,
          {
            strict: argv.strict,
            resolveImport: (usePath) => importInterface(importedFile(file, usePath), interfaces, process.cwd()),
          },
          file,
        );
  for (const diagnostic of result.diagnostics)
    if (hasErrors([diagnostic]) || argv.strict)
      process.stderr.write(`${formatDiagnostic(file, source, diagnostic, { color })}\n`);
  if (!("graph" in result) || result.graph === undefined) return exitCodeOfDiagnostics(result.diagnostics);
  const text =
    argv.format === "dot" ? toDot(result.graph) : argv.format === "svg" ? toSvg(result.graph) : toMermaid(result.graph);
  if (argv.out === undefined) process.stdout.write(text);
  else writeWhole(argv.out, text);
  return EXIT.ok;
}

function writeWhole(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}
