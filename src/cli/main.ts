import yargs from "yargs";
import { compilerVersion } from "../version.js";
import { buildCommand } from "./build-command.js";
import { checkCommand } from "./check-command.js";
import { controlCommands } from "./control-commands.js";
import { dbosCommands } from "./dbos-commands.js";
import { runCommand } from "./run-command.js";
import { testCommand } from "./test-command.js";
import { EXIT } from "./exit-codes.js";
import { UsageError } from "./find-programs.js";

/** Runs one command; its exit code, from the one table in exit-codes.ts. */
export async function main(argv: readonly string[]): Promise<number> {
  let argumentsRejected = false;
  const parser = controlCommands(testCommand(dbosCommands(runCommand(buildCommand(checkCommand(
    yargs([...argv])
      .scriptName("prosec")
      .usage("$0 <command> [options]\n\nCompiles OpenProse .prose programs to TypeScript modules.")
      .version(compilerVersion)
      .strict()
      .demandCommand(1, "name a command: prosec check <files or folders...>")
      .help()
      .alias("h", "help")
      .alias("v", "version")
      .wrap(Math.min(100, process.stdout.columns ?? 100))
      .fail((message, error) => {
        // yargs reports some argument errors (an option missing its value) as a YError: usage, not a crash.
        if (error && error.name !== "YError") throw error;
        // Throwing stops yargs here: without it the command would still run with what it got.
        argumentsRejected = true;
        throw new UsageError(message ?? error?.message ?? "the arguments are wrong");
      }),
  ))))));
  try {
    process.exitCode = EXIT.ok;
    await parser.parseAsync();
  } catch (error) {
    if (error instanceof UsageError) {
      const help = argumentsRejected ? `${await parser.getHelp()}\n\n` : "";
      process.stderr.write(`${help}prosec: ${error.message}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`prosec: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.PROSEC_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return EXIT.internal;
  }
  return Number(process.exitCode ?? EXIT.ok);
}
