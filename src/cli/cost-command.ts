/**
 * `prosec cost <files>`: each program's static cost bound, before anything is paid: the worst-case
 * model calls by kind, the critical path, tokens and dollars (price table: list prices by family,
 * `PROSEC_PRICES`), unbounded loops and recursions by line. With fallback chains (`--fallback`,
 * `PROSEC_FALLBACK`), a model's tokens are priced at its chain's most expensive model.
 */
import type { Argv } from "yargs";
import type { Count, ProgramCost, PriceTable } from "../../runtime/cost.js";
import { importedFile, importInterface } from "../project/imports.js";
import { costOfSource, type ImportResolution } from "../compile.js";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { formatDiagnostic } from "../diagnostics/format.js";
import { formatCount, formatDollars } from "../phases/2-analyze/index.js";
import { assumptionLine, boundFigures, describeBound, pricesFromEnvironment } from "./cost-report.js";
import { EXIT } from "../exit-codes.js";
import { readFallback, withFallback, type FallbackArguments } from "./fallback-option.js";
import { withFormat, type FormatArguments } from "./output-format.js";
import { findPrograms } from "../project/files.js";
import { readProgram } from "../project/read-program.js";
import { jsonText } from "../json-text.js";

export interface CostArguments extends FormatArguments, FallbackArguments {
  readonly paths: readonly string[];
  readonly strict: boolean;
}

export function costCommand(yargs: Argv): Argv {
  return yargs.command<CostArguments>(
    "cost <paths..>",
    "Print each program's worst-case model calls, critical path, tokens and dollars, before running it",
    (command) =>
      withFallback(
        withFormat(
          command.positional("paths", {
            type: "string",
            array: true,
            demandOption: true,
            describe: "files or folders",
          }),
          "each program's figures, and its bound as data",
        ),
        "a model's tokens are priced at its chain's most expensive model",
      ).option("strict", {
        type: "boolean",
        default: false,
        describe: "treat warnings as errors",
      }),
    (argv) => {
      process.exitCode = runCost(argv);
    },
  );
}

export function runCost(argv: CostArguments): number {
  const { chains } = readFallback(argv.fallback ?? []);
  const prices = chains.boundPrices(pricesFromEnvironment());
  const cwd = process.cwd();
  const interfaces = new Map<string, ImportResolution>();
  const color = process.stdout.isTTY === true && !process.env["NO_COLOR"];
  const reports: Array<{ file: string; cost?: ProgramCost }> = [];
  let failed = false;
  for (const file of findPrograms(argv.paths, cwd)) {
    const { text: source, problem } = readProgram(file);
    const result =
      problem !== undefined
        ? { diagnostics: [problem] }
        : costOfSource(
            source,
            {
              strict: argv.strict,
              resolveImport: (usePath) => importInterface(importedFile(file, usePath), interfaces, cwd),
            },
            file,
          );
    if (hasErrors(result.diagnostics)) {
      failed = true;
      for (const diagnostic of result.diagnostics)
        process.stderr.write(`${formatDiagnostic(file, source, diagnostic, { color })}\n`);
    }
    reports.push({ file, ...(result.cost === undefined ? {} : { cost: result.cost }) });
  }
  if (argv.format === "json")
    process.stdout.write(
      `${jsonText({ programs: reports.map((report) => jsonReport(report, prices)), ...(chains.empty ? {} : { fallback: chains.describe() }) }, 2)}\n`,
    );
  else {
    printText(reports, prices);
    for (const chain of chains.describe())
      process.stdout.write(`Fallback ${chain}: priced at the most expensive of them.\n`);
  }
  return failed ? EXIT.failed : EXIT.ok;
}

function printText(reports: ReadonlyArray<{ file: string; cost?: ProgramCost }>, prices: PriceTable): void {
  let assumption: string | undefined;
  for (const { file, cost } of reports) {
    if (cost === undefined) continue;
    process.stdout.write(
      `${file}\n${describeBound(cost, boundFigures(cost, prices, undefined))
        .map((line) => `  ${line}\n`)
        .join("")}`,
    );
    assumption = assumptionLine(cost);
  }
  if (assumption !== undefined) process.stdout.write(`${assumption}\n`);
}

function jsonReport({ file, cost }: { file: string; cost?: ProgramCost }, prices: PriceTable): object {
  if (cost === undefined) return { file, errors: true };
  const figures = boundFigures(cost, prices, undefined);
  // Dollars to a millionth: sums of prices per token carry floating-point noise past that.
  const rounded = (value: number) => Math.round(value * 1e6) / 1e6;
  return {
    file,
    calls: jsonBound(figures.calls),
    byKind: Object.fromEntries(Object.entries(figures.byKind).map(([kind, count]) => [kind, jsonBound(count)])),
    criticalPath: jsonBound(figures.criticalPath),
    tokens: { input: jsonBound(figures.inputTokens), output: jsonBound(figures.outputTokens) },
    dollars: figures.dollars === undefined ? null : jsonBound(figures.dollars, rounded, formatDollars),
    unpriced: figures.unpriced,
    bound: cost,
  };
}

/**
 * A figure of `prosec cost --format json` (docs/cost.md): a number when it is one, `"unbounded"`, or for
 * a bound that depends on what the run reads, the `Count` of runtime/types/program.ts (its terms:
 * `sum`, `product`, `max`, `symbol`, numbers as numbers) with `text`, as the text report prints it.
 */
type JsonBound = number | "unbounded" | ({ readonly text: string } & object);

function jsonBound(
  count: Count,
  number: (value: number) => number = (value) => value,
  text?: (value: number) => string,
): JsonBound {
  if (typeof count === "number") return number(count);
  if (count === "unbounded") return count;
  return { text: formatCount(count, text), ...(numbersOf(count, number) as object) };
}

function numbersOf(count: Count, number: (value: number) => number): Count {
  if (typeof count === "number") return number(count);
  if (count === "unbounded" || "symbol" in count) return count;
  if ("sum" in count) return { sum: count.sum.map((part) => numbersOf(part, number)) };
  if ("product" in count) return { product: count.product.map((part) => numbersOf(part, number)) };
  return { max: count.max.map((part) => numbersOf(part, number)) };
}
