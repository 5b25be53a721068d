import { internalErrorReport } from "../diagnostics/compiler-bug.js";
import type { Argv } from "yargs";
import { compilerVersion } from "../version.js";
import { endQuietlyWhenOutputCloses } from "./closed-output.js";
import { EXIT } from "../exit-codes.js";
import { forStream } from "../printable.js";
import { DatabaseMismatch, UsageError } from "../errors.js";
import { asEnvironmentError, EnvironmentError } from "../../runtime/host.js";
import { pathProblem } from "./path-problem.js";
import { usageMessage } from "./usage-errors.js";
import { withoutHelpKeptAhead, yargs } from "./yargs.js";

/** Help is as wide as the terminal, up to 100 columns (longer lines are hard to read). */
const HELP_WIDTH = 100;

type Command = (yargs: Argv) => Argv;

/**
 * Every command, in the order help lists them, with the names it defines. A command's module (and all
 * it imports) is loaded only when it is named: `prosec run` does not pay for the view, the graph or
 * the registry at start-up.
 */
const commandTable: ReadonlyArray<{ readonly names: readonly string[]; readonly load: () => Promise<Command> }> = [
  { names: ["init"], load: async () => (await import("./init-command.js")).initCommand },
  { names: ["check"], load: async () => (await import("./check-command.js")).checkCommand },
  { names: ["build"], load: async () => (await import("./build-command.js")).buildCommand },
  { names: ["run"], load: async () => (await import("./run-command.js")).runCommand },
  {
    names: ["worker", "submit", "status", "result", "migrate"],
    load: async () => (await import("./dbos-commands.js")).dbosCommands,
  },
  { names: ["test"], load: async () => (await import("./test-command.js")).testCommand },
  { names: ["eval"], load: async () => (await import("./eval-command.js")).evalCommand },
  {
    names: ["answer", "approve", "deny", "cancel"],
    load: async () => (await import("./control-commands.js")).controlCommands,
  },
  { names: ["runs"], load: async () => (await import("./runs-command.js")).runsCommand },
  { names: ["examples"], load: async () => (await import("./examples-command.js")).examplesCommand },
  { names: ["lsp"], load: async () => (await import("./lsp-command.js")).lspCommand },
  { names: ["cost"], load: async () => (await import("./cost-command.js")).costCommand },
  { names: ["graph"], load: async () => (await import("./graph-command.js")).graphCommand },
  { names: ["view"], load: async () => (await import("./view-command.js")).viewCommand },
  { names: ["add"], load: async () => (await import("./add-command.js")).addCommand },
  { names: ["install"], load: async () => (await import("./install-command.js")).installCommand },
  { names: ["update"], load: async () => (await import("./update-command.js")).updateCommand },
];

/** The command the arguments name; every command for help, `--version` or a name to correct. */
function commandsFor(argv: readonly string[]): Promise<Command[]> {
  const named = commandTable.find((command) => command.names.includes(argv[0] ?? ""));
  return Promise.all((named === undefined ? commandTable : [named]).map((command) => command.load()));
}

/** Runs one command; its exit code, from the one table in exit-codes.ts. */
export async function main(argv: readonly string[]): Promise<number> {
  endQuietlyWhenOutputCloses();
  let withHelp = false;
  const commands = await commandsFor(argv);
  const parser: Argv = commands
    .reduce((parser, command) => command(parser), withoutHelpKeptAhead(yargs([...argv])))
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
      // Messages may quote a program (someone else's) or a model: a terminal gets no escape sequence.
      process.stderr.write(forStream(process.stderr, `${help}prosec: ${error.message}\n`));
      return EXIT.usage;
    }
    if (error instanceof DatabaseMismatch) {
      process.stderr.write(forStream(process.stderr, `prosec: ${error.message}\n`));
      return EXIT.runStateUnusable;
    }
    // A file where a folder goes, an output folder that is not there: the user's paths, not a bug.
    const problem = pathProblem(error);
    if (problem !== undefined) {
      process.stderr.write(forStream(process.stderr, `prosec: ${problem}\n`));
      return EXIT.usage;
    }
    // A full disk, a read-only folder: the machine's problem, said as such (not "a bug in prosec").
    const environment =
      error instanceof EnvironmentError
        ? error
        : asEnvironmentError(error, "A file operation", "run the command again");
    if (environment instanceof EnvironmentError) {
      process.stderr.write(forStream(process.stderr, `prosec: ${environment.reason}\n`));
      return EXIT.environment;
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
