import { createRequire } from "node:module";
import type { Argv } from "yargs";

/** Defined (as the bundled factory's path) only in the bundle scripts/bundle-run.mjs builds for `prosec run`. */
declare const PROSEC_BUNDLED_YARGS: string | undefined;

/**
 * yargs' CommonJS build. Its ESM build lays out help with cliui's stand-in for wrap-ansi, which breaks
 * lines every N characters, in the middle of words ("diag/nostics"); the CommonJS build wraps at spaces.
 * The factory (`yargs/yargs`), not the package's main module: that one also builds a singleton parser
 * of `process.argv` as it loads, which prosec never uses (a few ms of every command's start-up).
 */
export const yargs = createRequire(import.meta.url)(
  typeof PROSEC_BUNDLED_YARGS === "string" ? PROSEC_BUNDLED_YARGS : "yargs/yargs",
) as (args: readonly string[]) => Argv;

/** The part of yargs' internals `withoutHelpKeptAhead` reaches (yargs 17's usage instance). */
interface UsageInternals {
  getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } };
}

/**
 * `parser`, without yargs rendering the whole help of the command it runs as the command's handler
 * starts (yargs 17 keeps it in case the handler fails and help is to be shown: 15–20 ms for `run`'s
 * options, on every run). prosec never shows help for a handler's failure (main.ts's `.fail` rethrows
 * those), and help asked for (`--help`, a usage error) is rendered when it is asked for, as before.
 */
export function withoutHelpKeptAhead(parser: Argv): Argv {
  (parser as unknown as UsageInternals).getInternalMethods().getUsageInstance().cacheHelpMessage = () => undefined;
  return parser;
}
