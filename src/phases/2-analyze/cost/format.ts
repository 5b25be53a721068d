/**
 * Bounds as people read them: `3 + 4·|items|`, `max(2, |a|)`, `unbounded`; dollars as `$0.42`.
 */
import { type Count, priceOf, type PriceTable } from "../../../../runtime/cost.js";
import { Poly } from "./poly.js";

export function formatCount(count: Count, number: (value: number) => string = formatNumber): string {
  if (typeof count === "number") return number(count);
  if (count === "unbounded") return "unbounded";
  if ("symbol" in count) return count.symbol;
  if ("sum" in count) return count.sum.map((part) => formatCount(part, number)).join(" + ");
  if ("product" in count)
    return count.product
      .map((part) =>
        typeof part === "object" && "sum" in part ? `(${formatCount(part, number)})` : formatCount(part, number),
      )
      .join("·");
  return `max(${count.max.map((part) => formatCount(part, number)).join(", ")})`;
}

/**
 * `12,345`, rounded half away from zero as `toLocaleString("en-US", { maximumFractionDigits: 0 })`
 * rounds. Grouped by hand: the first `toLocaleString` of a process loads ICU's locale data, about 40 ms
 * of `prosec run`'s start-up where it shows the cost of a program of many calls (issue 45).
 */
export function formatNumber(value: number): string {
  const whole = Math.round(Math.abs(value));
  if (!Number.isSafeInteger(whole) || (value < 0 && whole === 0) || Object.is(value, -0))
    return value.toLocaleString("en-US", { maximumFractionDigits: 0 });
  return `${value < 0 ? "-" : ""}${String(whole).replace(/\B(?=(\d{3})+$)/g, ",")}`;
}

export function formatDollars(value: number): string {
  return `$${value < 0.01 && value > 0 ? value.toPrecision(2) : value.toFixed(2)}`;
}

/** The dollars of a bound's tokens, as a count (exact coefficients); undefined models have no price. */
export function dollarCount(
  tokens: { readonly [model: string]: { readonly input: Count; readonly output: Count } },
  prices: PriceTable,
  modelId: (name: string) => string,
): { count: Count; unpriced: string[] } {
  let dollars = Poly.zero;
  const unpriced: string[] = [];
  for (const [model, { input, output }] of Object.entries(tokens)) {
    const price = priceOf(modelId(model), prices);
    if (price === undefined) unpriced.push(model);
    else
      dollars = dollars
        .plus(Poly.fromCount(input).scale(price.input / 1_000_000))
        .plus(Poly.fromCount(output).scale(price.output / 1_000_000));
  }
  return { count: dollars.toCount(true), unpriced };
}
