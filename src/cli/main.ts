import yargs from "yargs";
import { compilerVersion } from "../version.js";
import { checkCommand } from "./check-command.js";
import { UsageError } from "./find-programs.js";

/** Exit codes: 0 success, 1 the programs have errors, 2 usage, 3 internal compiler error. */
export async function main(argv: readonly string[]): Promise<number> {
  let usageProblem: string | undefined;
  const parser = checkCommand(
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
        if (error) throw error;
        usageProblem = message;
      }),
  );
  try {
    process.exitCode = 0;
    await parser.parseAsync();
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`prosec: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`prosec: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.PROSEC_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return 3;
  }
  if (usageProblem !== undefined) {
    process.stderr.write(`${await parser.getHelp()}\n\nprosec: ${usageProblem}\n`);
    return 2;
  }
  return Number(process.exitCode ?? 0);
}
