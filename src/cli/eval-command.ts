import type { Argv } from "yargs";
import { withFormat } from "./output-format.js";
import type { EvalArguments } from "./eval-program.js";

export function evalCommand(yargs: Argv): Argv {
  return yargs.command<EvalArguments>(
    "eval [file]",
    "Run an eval program once per case (its asserts scored, judged by the model) and report pass rates with 95% intervals; gate CI with --baseline or --min",
    (command) =>
      withFormat(
        command.positional("file", {
          type: "string",
          describe: "the eval program: an OpenProse program that calls the one under test and asserts what must hold",
        }),
        "the report as one object",
      )
        .option("cases", {
          type: "string",
          describe: 'a JSON Lines file (a case a line: {"name": ..., "inputs": {...}}) or a folder of .json cases',
        })
        .option("repeat", { type: "number", default: 1, describe: "run each case this many times" })
        .option("concurrency", { type: "number", default: 8, describe: "cases run at once" })
        .option("budget", {
          type: "number",
          describe:
            "dollars the whole eval may spend: refused before any request when its bound is over it; its runs stop before crossing it",
        })
        .option("yes", {
          type: "boolean",
          default: false,
          describe: "start even when the eval's bound is over --budget",
        })
        .option("resume", {
          type: "string",
          describe: "continue the eval with this id: finished cases are not run (nor paid for) again",
        })
        .option("baseline", {
          type: "string",
          describe:
            "compare with this baseline: fail (exit 1) when an assert's rate fell by more than the intervals allow",
        })
        .option("save-baseline", {
          type: "string",
          describe: "write the eval's pass rates to this file, as a baseline",
        })
        .option("min", {
          type: "number",
          describe: "fail (exit 1) when an assert's (or the overall) rate is surely below this (its upper bound is)",
        })
        .option("html", {
          type: "string",
          describe: "also write the report as a self-contained HTML page to this file",
        })
        .option("scripted", {
          type: "string",
          describe:
            "answer with prosec/testing's scripted model from this JSON file ({answers, defaults, strict}): offline, no key",
        })
        .option("strict", { type: "boolean", default: false, describe: "treat warnings as errors" }),
    async (argv) => {
      const { evalProgram } = await import("./eval-program.js");
      process.exitCode = await evalProgram(argv);
    },
  );
}
