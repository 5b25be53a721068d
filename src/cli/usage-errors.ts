/**
 * yargs' failure messages, said the way prosec says things: an unknown command or option gets the
 * closest known one, and an option is named once, with its dashes.
 */
import { closest } from "../phases/2-analyze/suggest.js";

/** The line to print for a failure yargs reported, given the command line and the options in force. */
export function usageMessage(message: string, argv: readonly string[], knownOptions: readonly string[]): string {
  const recommended = /^Did you mean (\S+)\?$/.exec(message);
  if (recommended) return `unknown command \`${argv[0]}\` (did you mean \`prosec ${recommended[1]}\`?)`;
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (unknown) return unknown[1]!.split(", ").map((name) => unknownArgument(name, argv, knownOptions)).join("; ");
  const missing = /^Missing required arguments?: (.+)$/.exec(message);
  if (missing) return `missing ${missing[1]!.split(", ").map((name) => `--${name}`).join(", ")}`;
  return message.replace(/\b([a-z]+(?:-[a-z]+)+), [a-z]+(?:[A-Z][a-z]*)+\b/g, "--$1");
}

function unknownArgument(name: string, argv: readonly string[], knownOptions: readonly string[]): string {
  const written = argv.find((argument) => new RegExp(`^--?(?:no-)?${escape(name)}(?:=|$)`).test(argument));
  if (written === undefined) return `unexpected argument \`${name}\``;
  const flag = written.split("=")[0]!;
  const options = knownOptions.filter((option) => option.length > 1 && !/[A-Z]/.test(option));
  const suggestion = closest(flag.replace(/^--?/, ""), options);
  return `unknown option \`${flag}\`${suggestion === undefined ? "" : ` (did you mean \`--${suggestion}\`?)`}`;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
