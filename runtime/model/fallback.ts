/**
 * Model fallback: when a model cannot answer (overloaded, rate-limited after the SDK's own retries, or
 * unknown to the server), the call goes to the next model of its chain. Chains are the run's, not the
 * program's: `RunOptions.fallback` (`{ sonnet: ["opus", "haiku"] }`) on top of `PROSEC_FALLBACK`
 * (`sonnet=opus,haiku;opus=sonnet`), names resolved as a program's model names are (models.ts).
 *
 * A chain's price for a bound (the budget's check before the run, `prosec cost --fallback`) is its most
 * expensive model's: the run may end up paying that one.
 */
// The error classes alone: the SDK's index loads its whole client, and `prosec check` reaches this module.
import { APIError } from "@anthropic-ai/sdk/core/error";
import { priceOf, type PriceTable } from "./prices.js";
import { resolveModel } from "./models.js";
import { ProseError } from "../errors.js";
import type { FallbackChains, ModelPrice, RunOptions } from "../types.js";

export type { FallbackChains } from "../types.js";

/** Why a chain cannot be read. */
export class FallbackError extends Error {}

/**
 * One `--fallback` value, or one `;`-separated part of `PROSEC_FALLBACK`: `model=next,next...`.
 * Several chains for one model: the last wins.
 */
export function parseFallback(text: string): FallbackChains {
  const chains: Record<string, string[]> = {};
  for (const part of text
    .split(";")
    .map((chain) => chain.trim())
    .filter((chain) => chain !== "")) {
    const match = /^([^=\s,]+)\s*=\s*([^=]+)$/.exec(part);
    const next = match?.[2]!.split(",").map((name) => name.trim());
    if (match === null || next === undefined || next.some((name) => name === "" || /\s/.test(name)))
      throw new FallbackError(
        `cannot read the fallback chain "${part}": write model=next,next (e.g. sonnet=opus,haiku), chains separated by ";"`,
      );
    chains[match[1]!] = next;
  }
  return chains;
}

/** `PROSEC_FALLBACK`, then `chains` (a model named in both takes the chain of `chains`). */
export function fallbackChains(
  chains: FallbackChains | undefined,
  env: NodeJS.ProcessEnv = process.env,
): FallbackChains {
  const fromEnv = env["PROSEC_FALLBACK"];
  return { ...(fromEnv === undefined ? {} : parseFallback(fromEnv)), ...chains };
}

/** A run's chains; a mistake in `PROSEC_FALLBACK` is the run's error. */
export function runChains(options: RunOptions, file: string): ModelChains {
  for (const [model, next] of Object.entries(options.fallback ?? {}))
    if (!Array.isArray(next) || next.some((name) => typeof name !== "string" || name.trim() === ""))
      throw new ProseError(
        `RunOptions.fallback: the chain of ${model} must be a list of model names, e.g. { ${model}: ["opus", "haiku"] }.`,
        { file },
      );
  try {
    return new ModelChains(fallbackChains(options.fallback), (name) => resolveModel(name, options.models));
  } catch (error) {
    if (error instanceof FallbackError) throw new ProseError(`PROSEC_FALLBACK: ${error.message}`, { file });
    throw error;
  }
}

/** Model ids to the ids tried after them, in order (the model itself first). */
export class ModelChains {
  private readonly byId = new Map<string, readonly string[]>();

  constructor(chains: FallbackChains, resolve: (name: string) => string) {
    for (const [name, next] of Object.entries(chains)) {
      const id = resolve(name);
      this.byId.set(id, [...new Set([id, ...next.map(resolve)])]);
    }
  }

  /** The models a call to `model` may be answered by, `model` first. */
  of(model: string): readonly string[] {
    return this.byId.get(model) ?? [model];
  }

  get empty(): boolean {
    return this.byId.size === 0;
  }

  /**
   * `prices` with each chain's first model priced as its most expensive member (input and output
   * each at their highest), for bounds. Members without a price are left out (the budget's check
   * names them: `unpricedMembers`).
   */
  boundPrices(prices: PriceTable): PriceTable {
    const table: Record<string, ModelPrice> = { ...prices };
    for (const [id, chain] of this.byId) {
      const priced = chain.map((member) => priceOf(member, prices)).filter((price) => price !== undefined);
      if (priced.length === 0) continue;
      table[id] = {
        input: Math.max(...priced.map((price) => price.input)),
        output: Math.max(...priced.map((price) => price.output)),
      };
    }
    return table;
  }

  /** The models after `model` in its chain that have no price. */
  unpricedMembers(model: string, prices: PriceTable): string[] {
    return this.of(model)
      .slice(1)
      .filter((member) => priceOf(member, prices) === undefined);
  }

  /** One line per chain: `claude-sonnet-5-5 → claude-opus-5-5, claude-haiku-5-5`. */
  describe(): string[] {
    return [...this.byId.values()].map((chain) => `${chain[0]} → ${chain.slice(1).join(", ")}`);
  }
}

/**
 * Why a model could not answer, when another model may: overloaded (529, or an `overloaded_error` in
 * a stream), rate-limited (429) once the SDK's retries are spent, or not found (404). Anything else
 * (a bad request, a network failure, a cancelled run) is the call's error as it is.
 */
export function fallbackReason(error: unknown): string | undefined {
  if (!(error instanceof APIError)) return undefined;
  const type = error.type ?? "";
  if (error.status === 529 || type === "overloaded_error") return "overloaded";
  if (error.status === 429 || type === "rate_limit_error") return "rate-limited";
  if (error.status === 404 || type === "not_found_error") return "not found";
  return undefined;
}

/**
 * `attempt` with each model of `models` in turn, as long as the one before could not answer for a
 * reason another model may not share (`fallbackReason`); `onFallback` hears of each move. The last
 * model's failure is the call's.
 */
export async function withFallback<T>(
  models: readonly string[],
  attempt: (model: string) => Promise<T>,
  onFallback: (from: string, to: string, reason: string) => void,
): Promise<T> {
  for (let index = 0; ; index++) {
    const model = models[index]!;
    try {
      return await attempt(model);
    } catch (error) {
      const reason = fallbackReason(error);
      const next = models[index + 1];
      if (reason === undefined || next === undefined) throw error;
      const said = error instanceof APIError ? (error.apiMessage ?? "") : "";
      onFallback(model, next, said === "" ? reason : `${reason}: ${said}`);
    }
  }
}
