import type { Argv } from "yargs";
import { build, type BuildOptions } from "../project/build.js";
import { reportBuild } from "./build-report.js";
import { Progress } from "./progress.js";

export interface BuildArguments {
  readonly paths: readonly string[];
  readonly "out-dir"?: string;
  readonly check: boolean;
  readonly typecheck: boolean;
  readonly strict: boolean;
  readonly force: boolean;
  readonly watch: boolean;
}

export function buildCommand(yargs: Argv): Argv {
  return yargs.command<BuildArguments>(
    "build <paths..>",
    "Compile .prose files (folders are searched recursively) to TypeScript modules: foo.prose → foo.prose.ts",
    (command) =>
      command
        .positional("paths", { type: "string", array: true, demandOption: true, describe: "files or folders" })
        .option("out-dir", {
          type: "string",
          requiresArg: true,
          describe: "write modules under this folder, mirroring the source tree",
        })
        .option("check", {
          type: "boolean",
          default: false,
          describe: "write nothing; exit 1 if any output is missing or stale (for CI)",
        })
        .option("typecheck", {
          type: "boolean",
          default: false,
          describe: "type-check the modules (strict) against the runtime's types",
        })
        .option("strict", { type: "boolean", default: false, describe: "treat warnings as errors" })
        .option("force", { type: "boolean", default: false, describe: "rebuild outputs whose inputs did not change" })
        .option("watch", {
          type: "boolean",
          default: false,
          describe: "build, then rebuild what changes (and what uses it) until Ctrl-C",
        })
        .check((argv) => {
          const outDir: unknown = argv["out-dir"];
          // A string is yargs' way to reject the arguments with that message.
          if (Array.isArray(outDir)) return "--out-dir is given more than once";
          if (outDir === "") return "--out-dir needs the folder to write the modules under";
          if (argv.watch && argv.check) return "--watch writes modules and --check writes none: use one of them";
          return true;
        }),
    async (argv) => {
      const options: BuildOptions = {
        outDir: argv["out-dir"],
        check: argv.check,
        typecheck: argv.typecheck,
        strict: argv.strict,
        force: argv.force,
      };
      if (argv.watch) {
        const { watchBuild } = await import("./build-watch.js");
        process.exitCode = await watchBuild(argv.paths, options);
        return;
      }
      const progress = new Progress(process.stderr);
      const result = await build(argv.paths, { ...options, onProgress: (step) => progress.update(step) }).finally(() =>
        progress.done(),
      );
      reportBuild(result, argv.check);
      process.exitCode = result.exitCode;
    },
  );
}
