/**
 * A program's cost bound as `prosec cost` and `prosec run` print it: model calls by kind, the
 * critical path, tokens and dollars, the unbounded constructs, what the symbols stand for, and the
 * assumption behind the tokens. Symbols whose value is known (the run's inputs) are replaced.
 */
import {
  boundDollars,
  evaluate,
  inputValues,
  totalCalls,
  type Count,
  type ProgramCost,
  type SymbolValues,
} from "../../runtime/cost.js";
import { resolveModel, PriceError, priceTable, type PriceTable } from "../../runtime/cost.js";
import type { ModelTable, Value } from "../../runtime/types.js";
import { dollarCount, formatCount, formatDollars, formatNumber, Poly } from "../phases/2-analyze/light.js";
import { UsageError } from "../errors.js";

export interface BoundFigures {
  readonly calls: Count;
  readonly byKind: { readonly [kind: string]: Count };
  readonly criticalPath: Count;
  readonly inputTokens: Count;
  readonly outputTokens: Count;
  /** Undefined when no model has a price. */
  readonly dollars: Count | undefined;
  readonly unpriced: readonly string[];
}

/** The bound's figures, with the known symbols replaced by their values. */
export function boundFigures(
  cost: ProgramCost,
  prices: PriceTable,
  models: ModelTable | undefined,
  values: SymbolValues = () => undefined,
): BoundFigures {
  const known = (count: Count): Count =>
    Poly.fromCount(count)
      .substitute((symbol) => {
        const value = values(symbol);
        return value === undefined ? Poly.symbol(symbol) : Poly.constant(value);
      })
      .toCount(true);
  const tokens = Object.fromEntries(
    Object.entries(cost.tokens).map(([model, { input, output }]) => [
      model,
      { input: known(input), output: known(output) },
    ]),
  );
  const sum = (field: "input" | "output"): Count =>
    known({ sum: Object.values(cost.tokens).map((entry) => entry[field]) });
  const dollars = dollarCount(tokens, prices, (name) => resolveModel(name, models));
  return {
    calls: known(totalCalls(cost)),
    byKind: Object.fromEntries(Object.entries(cost.calls).map(([kind, count]) => [kind, known(count)])),
    criticalPath: known(cost.criticalPath),
    inputTokens: sum("input"),
    outputTokens: sum("output"),
    dollars:
      dollars.unpriced.length === Object.keys(tokens).length && dollars.unpriced.length > 0 ? undefined : dollars.count,
    unpriced: dollars.unpriced,
  };
}

const KIND_LABELS: Readonly<Record<string, string>> = {
  session: "sessions",
  judgment: "judgments",
  choice: "choices",
  extraction: "extractions",
  retry: "retries and re-asks",
};

/** The report's lines (indented under the program's name by the caller). */
export function describeBound(cost: ProgramCost, figures: BoundFigures): string[] {
  const kinds = Object.entries(figures.byKind)
    .map(([kind, count]) => `${KIND_LABELS[kind] ?? kind} ${formatCount(count)}`)
    .join(", ");
  const lines = [
    `model calls    ${bounded(figures.calls)} (${kinds})`,
    `critical path  ${bounded(figures.criticalPath)} calls one after another`,
    `tokens         ≈ ${formatCount(figures.inputTokens)} input + ${formatCount(figures.outputTokens)} output`,
  ];
  if (figures.dollars !== undefined)
    lines.push(
      `cost           ≈ ${formatCount(figures.dollars, formatDollars)}${figures.unpriced.length === 0 ? "" : ` (without ${figures.unpriced.join(", ")}: no price)`}`,
    );
  else lines.push(`cost           unknown: no price for ${figures.unpriced.join(", ")} (set PROSEC_PRICES)`);
  for (const construct of cost.unbounded) lines.push(`unbounded      line ${construct.line}: ${construct.reason}`);
  for (const symbol of cost.symbols) lines.push(`${symbol.name.padEnd(14)} ${symbolMeaning(symbol)}`);
  return lines;
}

export function assumptionLine(cost: ProgramCost): string {
  const reasks = cost.assumptions.reasks;
  const reasked =
    reasks === undefined || reasks === 0
      ? ""
      : `; a judgment, choice or extraction counts ${reasks} re-ask${reasks === 1 ? "" : "s"} (\`prosec run --reasks\` sets how many)`;
  return `Tokens assume each session's reply, and each value a prompt shows, is ${formatNumber(cost.assumptions.replyTokens)} tokens; a session counts one call (tool turns and continuations add more)${reasked}; input is priced at the base rate (prompt caching lowers it).`;
}

function bounded(count: Count): string {
  return count === "unbounded" ? "unbounded" : `≤ ${formatCount(count)}`;
}

function symbolMeaning(symbol: ProgramCost["symbols"][number]): string {
  const at = symbol.sites.map((site) => `${site.line}:${site.column}`).join(", ");
  if (symbol.kind === "count")
    return symbol.input !== undefined
      ? `the number given as input ${symbol.input}`
      : `a count read at run time (${at})`;
  return symbol.input !== undefined
    ? `the number of items in input ${symbol.input}`
    : `the number of items read at ${at}`;
}

/**
 * `prosec run` without a budget: the bound, before the run starts, when it is over $1 or unbounded
 * (a bound that depends on what the run reads is not shown: it has no figure yet).
 */
export function warnAboutBound(
  cost: ProgramCost,
  inputs: { readonly [name: string]: Value },
  prices: PriceTable,
  reasks?: number,
): void {
  const values = inputValues(cost, inputs);
  const dollars = boundDollars(cost, values, prices, (name) => resolveModel(name, undefined)).dollars;
  const calls = evaluate(totalCalls(cost, reasks), values);
  if (dollars === Infinity || calls === Infinity) {
    const where = cost.unbounded.map((construct) => `line ${construct.line}: ${construct.reason}`).join("; ");
    process.stderr.write(`This program's cost has no bound (${where}). Cap it with --budget or --max-calls.\n`);
  } else if (dollars !== undefined && dollars > 1) {
    process.stderr.write(
      `This program may make up to ${formatNumber(calls ?? 0)} model calls, about ${formatDollars(dollars)} (prosec cost shows the details). Cap it with --budget.\n`,
    );
  }
}

/** `PROSEC_PRICES` read once, a mistake in it a usage error. */
export function pricesFromEnvironment(): PriceTable {
  try {
    return priceTable(undefined);
  } catch (error) {
    if (error instanceof PriceError) throw new UsageError(`PROSEC_PRICES: ${error.message}`);
    throw error;
  }
}
