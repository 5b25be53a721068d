import { createRequire } from "node:module";
import type { Argv } from "yargs";

/**
 * yargs' CommonJS build. Its ESM build lays out help with cliui's stand-in for wrap-ansi, which breaks
 * lines every N characters, in the middle of words ("diag/nostics"); the CommonJS build wraps at spaces.
 */
export const yargs = createRequire(import.meta.url)("yargs") as (args: readonly string[]) => Argv;
