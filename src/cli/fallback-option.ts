/**
 * `--fallback MODEL=NEXT,NEXT` of `prosec run` and `prosec cost` (repeatable), on top of
 * `PROSEC_FALLBACK` (docs/production.md, "Fallback").
 */
import type { Argv } from "yargs";
import { FallbackError, fallbackChains, ModelChains, parseFallback, resolveModel } from "../../runtime/cost.js";
import type { FallbackChains } from "../../runtime/types.js";
import { UsageError } from "../errors.js";

export interface FallbackArguments {
  readonly fallback: readonly string[];
}

export function withFallback<T>(command: Argv<T>, effect: string): Argv<T & FallbackArguments> {
  return command.option("fallback", {
    type: "string",
    array: true,
    default: [],
    describe: `MODEL=NEXT,NEXT: when MODEL is overloaded, rate-limited or not found, try these in turn (repeatable; on top of PROSEC_FALLBACK); ${effect}`,
  }) as Argv<T & FallbackArguments>;
}

export interface Fallback {
  /** What `--fallback` said, for `RunOptions.fallback` (the runtime adds `PROSEC_FALLBACK` itself). */
  readonly given: FallbackChains;
  /** Every chain, `PROSEC_FALLBACK`'s included, by model id. */
  readonly chains: ModelChains;
}

/** The chains of `--fallback` and `PROSEC_FALLBACK`; a mistake in either is a usage error. */
export function readFallback(values: readonly string[]): Fallback {
  const given: Record<string, readonly string[]> = {};
  for (const value of values)
    Object.assign(
      given,
      parsed(`--fallback ${value}`, () => parseFallback(value)),
    );
  const all = parsed("PROSEC_FALLBACK", () => fallbackChains(given));
  return { given, chains: new ModelChains(all, (name) => resolveModel(name, undefined)) };
}

function parsed<T>(where: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof FallbackError) throw new UsageError(`${where}: ${error.message}`);
    throw error;
  }
}
