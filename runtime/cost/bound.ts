/**
 * A program's static cost bound: the worst-case model calls, critical path and tokens that
 * `prosec build` writes into the module's metadata (`ProgramInfo.cost`) and `prosec cost` prints.
 * Quantities may depend on the run: a `Count` is a number, a symbol (a list's size, a numeric
 * input), or sums, products and maxima of counts; `"unbounded"` is a loop without `max` or a
 * recursion without `max_depth`. Here: the types, and evaluating a bound with a run's inputs.
 */
import { listWithoutModel } from "../values/structure.js";
import { priceOf, type PriceTable } from "../model/prices.js";
import type { Count, ProgramCost, Value } from "../types.js";

export type { CallKind, Count, CostSymbol, ProgramCost, UnboundedConstruct } from "../types.js";

/** A symbol's value, or undefined when it is not known (yet). */
export type SymbolValues = (symbol: string) => number | undefined;

/** The count's value; undefined when a symbol it needs has none; Infinity when unbounded. */
export function evaluate(count: Count, values: SymbolValues): number | undefined {
  if (typeof count === "number") return count;
  if (count === "unbounded") return Infinity;
  if ("symbol" in count) return values(count.symbol);
  const parts = ("sum" in count ? count.sum : "product" in count ? count.product : count.max).map((part) =>
    evaluate(part, values),
  );
  if (parts.some((part) => part === undefined))
    return parts.includes(Infinity) && !("product" in count && parts.includes(0)) ? Infinity : undefined;
  const numbers = parts as number[];
  if ("sum" in count) return numbers.reduce((sum, part) => sum + part, 0);
  if ("product" in count) return numbers.includes(0) ? 0 : numbers.reduce((product, part) => product * part, 1);
  return numbers.reduce((max, part) => Math.max(max, part), 0);
}

/** The values of the symbols that come from the program's inputs (a list input's size, a numeric input). */
export function inputValues(cost: ProgramCost, inputs: { readonly [name: string]: Value }): SymbolValues {
  const known = new Map<string, number>();
  for (const symbol of cost.symbols) {
    if (symbol.input === undefined || !Object.hasOwn(inputs, symbol.input)) continue;
    const value = inputs[symbol.input]!;
    if (symbol.kind === "count") {
      const number = typeof value === "number" ? value : Number(typeof value === "string" ? value.trim() : NaN);
      if (Number.isFinite(number)) known.set(symbol.name, Math.max(0, Math.ceil(number)));
    } else {
      const items = listWithoutModel(value);
      if (items !== undefined) known.set(symbol.name, items.length);
    }
  }
  return (name) => known.get(name);
}

export interface DollarBound {
  /** Infinity when unbounded; undefined when a symbol has no value yet. */
  readonly dollars: number | undefined;
  /** Models (as the program names them) without a price: left out of `dollars`. */
  readonly unpriced: readonly string[];
}

/** The estimated dollars of the bound's tokens. `modelId` maps the program's model names to model ids. */
export function boundDollars(
  cost: ProgramCost,
  values: SymbolValues,
  prices: PriceTable,
  modelId: (name: string) => string,
): DollarBound {
  const parts: Array<number | undefined> = [];
  const unpriced: string[] = [];
  for (const [name, tokens] of Object.entries(cost.tokens)) {
    const price = priceOf(modelId(name), prices);
    if (price === undefined) {
      unpriced.push(name);
      continue;
    }
    const input = evaluate(tokens.input, values);
    const output = evaluate(tokens.output, values);
    parts.push(
      input === undefined || output === undefined
        ? input === Infinity || output === Infinity
          ? Infinity
          : undefined
        : (input * price.input + output * price.output) / 1_000_000,
    );
  }
  const dollars = parts.includes(Infinity)
    ? Infinity
    : parts.includes(undefined)
      ? undefined
      : (parts as number[]).reduce((sum, part) => sum + part, 0);
  return { dollars, unpriced };
}

/**
 * All model calls of the bound. With more `reasks` (`RunOptions.reasks`) than the bound assumed, each
 * judgment, choice and extraction counts the extra re-asks too (with fewer, the bound still holds).
 */
export function totalCalls(cost: ProgramCost, reasks?: number): Count {
  const { session, judgment, choice, extraction, retry } = cost.calls;
  const calls: Count[] = [session, judgment, choice, extraction, retry];
  const extra = (reasks ?? 0) - (cost.assumptions.reasks ?? 0);
  return extra > 0
    ? { sum: [...calls, { product: [extra, { sum: [judgment, choice, extraction] }] }] }
    : { sum: calls };
}
