import { internalErrorReport } from "../diagnostics/compiler-bug.js";
import type { Argv } from "yargs";
import { compilerVersion } from "../version.js";
import { addCommand } from "./add-command.js";
import { buildCommand } from "./build-command.js";
import { checkCommand } from "./check-command.js";
import { controlCommands } from "./control-commands.js";
import { costCommand } from "./cost-command.js";
import { dbosCommands } from "./dbos-commands.js";
import { evalCommand } from "./eval-command.js";
import { examplesCommand } from "./examples-command.js";
import { graphCommand } from "./graph-command.js";
import { viewCommand } from "./view-command.js";
import { initCommand } from "./init-command.js";
import { installCommand } from "./install-command.js";
import { lspCommand } from "./lsp-command.js";
import { runCommand } from "./run-command.js";
import { endQuietlyWhenOutputCloses } from "./closed-output.js";
import { runsCommand } from "./runs-command.js";
import { testCommand } from "./test-command.js";
import { updateCommand } from "./update-command.js";
import { EXIT } from "../exit-codes.js";
import { DatabaseMismatch, UsageError } from "../errors.js";
import { usageMessage } from "./usage-errors.js";
import { yargs } from "./yargs.js";

/** Help is as wide as the terminal, up to 100 columns (longer lines are hard to read). */
const HELP_WIDTH = 100;

/** Runs one command; its exit code, from the one table in exit-codes.ts. */
export async function main(argv: readonly string[]): Promise<number> {
  endQuietlyWhenOutputCloses();
  let withHelp = false;
  const commands: ReadonlyArray<(yargs: Argv) => Argv> = [
    initCommand,
    checkCommand,
    buildCommand,
    runCommand,
    dbosCommands,
    testCommand,
    evalCommand,
    controlCommands,
    runsCommand,
    examplesCommand,
    lspCommand,
    costCommand,
    graphCommand,
    viewCommand,
    addCommand,
    installCommand,
    updateCommand,
  ];
  const parser: Argv = commands
    .reduce((parser, command) => command(parser), yargs([...argv]))
    .scriptName("prosec")
    .usage("$0 <command> [options]\n\nCompiles OpenProse .prose programs to TypeScript modules.")
    .version(compilerVersion)
    .strict()
    .recommendCommands()
    .demandCommand(1, "name a command: prosec check <files or folders...>")
    .example("$0 examples copy 01-hello-world", "start from a bundled example program")
    .example("$0 check hello.prose", "check a program and print its diagnostics")
    .example('$0 run research.prose -i topic="tidal power"', "run a program (needs ANTHROPIC_API_KEY)")
    .help()
    .alias("h", "help")
    .alias("v", "version")
    .wrap(Math.min(HELP_WIDTH, process.stdout.columns ?? HELP_WIDTH))
    .fail((message, error) => {
      // yargs' own validation failures (a YError, such as an option missing its value, or a string a
      // .check() returned) are usage errors, not crashes.
      if (error instanceof Error && error.name !== "YError") throw error;
      const usage = usageMessage(message ?? error?.message ?? "the arguments are wrong", argv, knownOptions(parser));
      withHelp = !/^unknown (option|command) /.test(usage);
      // Throwing stops yargs here: without it the command would still run with what it got.
      throw new UsageError(usage);
    });
  try {
    process.exitCode = EXIT.ok;
    await parser.parseAsync();
  } catch (error) {
    if (error instanceof UsageError) {
      // A misspelt option or command is one line that says its fix (`--out`: did you mean `--out-dir`?);
      // other argument errors show the command's help, then what is wrong, last, where the eye lands.
      const help = withHelp ? `${await parser.getHelp()}\n\n` : "";
      process.stderr.write(`${help}prosec: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof DatabaseMismatch) {
      process.stderr.write(`prosec: ${error.message}\n`);
      return EXIT.runStateUnusable;
    }
    process.stderr.write(internalErrorReport(error));
    if (process.env.PROSEC_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return EXIT.internal;
  }
  return Number(process.exitCode ?? EXIT.ok);
}

/** The options of the command being parsed, with their aliases (yargs has them, its types do not say so). */
function knownOptions(parser: Argv): string[] {
  const options = (
    parser as unknown as { getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> } }
  ).getOptions();
  return [...Object.keys(options.key), ...Object.values(options.alias).flat()];
}
