/**
 * yargs' failure messages, said the way prosec says things: an unknown command or option gets the
 * closest known one, and an option is named once, with its dashes.
 */
import { closest } from "../phases/2-analyze/light.js";

/**
 * The line to print for a failure yargs reported, given the command line and the options of the
 * command (names and aliases). An unknown option comes first whatever yargs complained about: it
 * takes the next argument as its value, so yargs often reports a missing argument instead.
 */
export function usageMessage(message: string, argv: readonly string[], knownOptions: readonly string[]): string {
  const recommended = /^Did you mean (\S+)\?$/.exec(message);
  if (recommended) return `unknown command \`${argv[0]}\` (did you mean \`prosec ${recommended[1]}\`?)`;
  const unknownFlags = unknownOptions(argv, knownOptions);
  if (unknownFlags.length > 0) return unknownFlags.map((flag) => unknownOption(flag, knownOptions)).join("; ");
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (unknown)
    return unknown[1]!
      .split(", ")
      .map((name) => `unexpected argument \`${name}\``)
      .join("; ");
  const valueless = /^Not enough arguments following: ([\w-]+)/.exec(message);
  if (valueless) return `--${valueless[1]} needs a value`;
  const missing = /^Missing required arguments?: (.+)$/.exec(message);
  if (missing)
    return `missing ${missing[1]!
      .split(", ")
      .map((name) => `--${name}`)
      .join(", ")}`;
  // yargs lists an option with its camel-case twin ("out-dir, outDir"): name it once.
  return message.replace(/\b([a-z]+(?:-[a-z]+)+), [a-z]+(?:[A-Z][a-z]*)+\b/g, "--$1");
}

/** The options written on the command line that the command does not have, as written (`--frmat`). */
function unknownOptions(argv: readonly string[], knownOptions: readonly string[]): string[] {
  const known = new Set(knownOptions.map(kebab));
  const flags: string[] = [];
  for (const argument of argv) {
    if (argument === "--") break;
    if (!/^--?[a-zA-Z]/.test(argument)) continue;
    const flag = argument.split("=")[0]!;
    const name = kebab(flag.replace(/^--?/, ""));
    // `-abc` is three short options.
    const names = flag.startsWith("--") ? [name.replace(/^no-/, "")] : [...name];
    if (names.some((option) => !known.has(option))) flags.push(flag);
  }
  return flags;
}

function unknownOption(flag: string, knownOptions: readonly string[]): string {
  const options = knownOptions.filter((option) => option.length > 1 && !/[A-Z]/.test(option));
  const name = flag.replace(/^--?/, "");
  // A name cut short (`--out`) is the start of the one option it begins, however many letters are missing.
  const completions = options.filter((option) => option.startsWith(name) && name.length >= 2);
  const suggestion = closest(name, options) ?? (completions.length === 1 ? completions[0] : undefined);
  return `unknown option \`${flag}\`${suggestion === undefined ? "" : ` (did you mean \`--${suggestion}\`?)`}`;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}
