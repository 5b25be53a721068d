/**
 * The run's meter: what its model calls have spent (dollars at the price table's rates, requests),
 * kept across a resumed run's processes, and the limits `RunOptions.budget` and `maxCalls` put on it.
 *
 * Before a request goes out, its worst case is reserved: its input (estimated high, at a third of its
 * characters, priced as a cache write when caching is on) and its `max_tokens` of output. A request
 * whose worst case, with what was spent and what is in flight, could cross a limit is not sent: the
 * meter stops the run. The requests already in flight finish (they are paid for) and then the run is
 * stopped as an interrupt is, so it can be resumed with a larger budget.
 *
 * A request whose `max_tokens` is the model's output limit (the run did not set `maxTokens`) is
 * fitted to the budget first: today's output limits (128,000 tokens, $1.92 at Sonnet's price) would
 * make every budget under a few dollars stop a run before its first request, whatever its bound.
 * Such a request asks for at most its share of what is left (what is spent and in flight taken off),
 * divided by the run's concurrency up to `FITTING_SHARES`: a `parallel` block's requests then all go
 * out, each with a share of what the earlier ones left. Never fewer than `FITTED_MAX_TOKENS_FLOOR`
 * tokens; a longer answer is continued (docs/model-answers.md), each continuation fitted again.
 */
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { ProseError, type ProseErrorDetails } from "../errors.js";
import { CACHE_WRITE_MULTIPLIER, priceOf, usageCost, type PriceTable } from "../model/prices.js";
import type { Usage } from "../types.js";

/** What a run has spent so far (`spent.json` in a durable run's folder). */
export interface Spent {
  readonly dollars: number;
  /** Requests to the model (tool turns included, replays not). */
  readonly calls: number;
}

export interface Limits {
  readonly budget?: number;
  readonly maxCalls?: number;
}

/**
 * What lets a run that a budget refused or stopped go on: a larger budget (or `maxCalls`), starting
 * anyway (`startOverBound`; `--yes` on the command line), or a price for a model that has none. The
 * message states the facts; each interface names its own way to do this.
 */
export type BudgetRemedy = "larger-budget" | "start-over-bound" | "price";

/** A budget stopped the run, or refused to start it (exit code `budget`). */
export class BudgetExceeded extends ProseError {
  constructor(
    reason: string,
    details: ProseErrorDetails,
    readonly remedy: BudgetRemedy,
  ) {
    super(reason, details);
  }
}

/** Dollars as a person writes them: cents when they are whole cents, else the digits given (`$0.001`). */
export function formatBudget(dollars: number): string {
  const cents = dollars * 100;
  return `$${Math.abs(cents - Math.round(cents)) < 1e-9 ? dollars.toFixed(2) : String(Number(dollars.toPrecision(4)))}`;
}

/** Why a request may not go out, and what would let the run go on. */
export interface Refusal {
  readonly reason: string;
  readonly remedy: BudgetRemedy;
}

/** The fewest tokens of output a request is fitted down to under a budget. */
const FITTED_MAX_TOKENS_FLOOR = 1024;
/**
 * The most shares what is left of a budget is divided into for a fitted request: with the default
 * concurrency of 64, a sixty-fourth of a $1 budget would cut every Sonnet answer at about 1,000 tokens.
 */
const FITTING_SHARES = 8;

/** A request whose `max_tokens` may be lowered to fit the budget: the run's concurrency limit. */
export interface Fitting {
  readonly concurrency: number;
}

export interface Reservation {
  /** The `max_tokens` to send: the request's own, or less where it was fitted to the budget. */
  readonly maxTokens: number;
  /**
   * The request ended: its reported usage is charged; one aborted with none reported (a cancelled
   * branch's request in flight) is charged its reserved worst case, since the server may have billed it.
   * Returns the dollars so charged as an estimate (0 for a request charged its usage, or settled before).
   */
  settle(usage: Usage | undefined, aborted?: boolean): number;
}

/**
 * The property an aborted request's error carries with the estimate it was charged (dollars): DBOS
 * keeps a failed checkpoint's error with its own properties, so a DBOS run's cost can count it.
 */
export const ABORTED_ESTIMATE = "prosecAbortedEstimate";

/** Marks `error` with the estimate its aborted request was charged (an error object only). */
export function markAbortedEstimate(error: unknown, dollars: number): void {
  if (dollars > 0 && typeof error === "object" && error !== null && Object.isExtensible(error))
    (error as Record<string, unknown>)[ABORTED_ESTIMATE] = dollars;
}

/** The estimate an aborted request's error (or its record) carries, else 0. */
export function abortedEstimateOf(error: unknown): number {
  const dollars =
    typeof error === "object" && error !== null ? (error as Record<string, unknown>)[ABORTED_ESTIMATE] : 0;
  return typeof dollars === "number" && Number.isFinite(dollars) && dollars > 0 ? dollars : 0;
}

export class Meter {
  private dollars = 0;
  private calls = 0;
  private reserved = 0;
  private inFlight = 0;
  private idle: Array<() => void> = [];
  /** Set once a request was refused: every later one is refused too. */
  private stopped: Refusal | undefined;

  constructor(
    readonly limits: Limits,
    readonly prices: PriceTable,
    private readonly caching: boolean,
  ) {}

  /** Called after every settled request with the new totals (a durable run's folder keeps them). */
  onSpent: ((spent: Spent) => void) | undefined;

  get limited(): boolean {
    return this.limits.budget !== undefined || this.limits.maxCalls !== undefined;
  }

  get spent(): Spent {
    return { dollars: this.dollars, calls: this.calls };
  }

  /** What earlier processes of a resumed run spent. */
  restore(spent: Spent): void {
    this.dollars += spent.dollars;
    this.calls += spent.calls;
  }

  /**
   * Reserves a request's worst case, or says why it may not go out. With `fitting`, a budget may
   * lower its `max_tokens` (`Reservation.maxTokens`) to its share of what is left.
   */
  admit(params: MessageCreateParamsNonStreaming, fitting?: Fitting): Reservation | Refusal {
    if (this.stopped !== undefined) return this.stopped;
    const { budget, maxCalls } = this.limits;
    if (maxCalls !== undefined && this.calls + this.inFlight + 1 > maxCalls) {
      return this.stop(
        `The run has made ${this.calls} of its ${maxCalls} model requests${this.inFlight === 0 ? "" : ` (${this.inFlight} more in flight)`} (--max-calls); one more could exceed it.`,
        "larger-budget",
      );
    }
    // The worst case is reserved under a budget; without one it is worked out only for a request that
    // is aborted (a priced model's), which is charged it and a DBOS run's cost counts (ABORTED_ESTIMATE).
    const price = priceOf(params.model, this.prices);
    if (budget !== undefined && price === undefined)
      return this.stop(
        `The model ${params.model} has no price, so the budget cannot be kept: give it one, e.g. PROSEC_PRICES="${params.model}=input/output" (dollars per million tokens).`,
        "price",
      );
    const inputDollars = (): number => {
      if (price === undefined) return 0;
      const input = Math.ceil(requestCharacters(params) / 3) * (this.caching ? CACHE_WRITE_MULTIPLIER : 1);
      return (input * price.input) / 1_000_000;
    };
    let maxTokens = params.max_tokens;
    if (budget !== undefined && price !== undefined && price.output > 0 && fitting !== undefined) {
      const shares = Math.max(1, Math.min(fitting.concurrency, FITTING_SHARES));
      const share = (budget - this.dollars - this.reserved - inputDollars()) / shares;
      const affordable = Math.max(FITTED_MAX_TOKENS_FLOOR, Math.floor((share * 1_000_000) / price.output));
      maxTokens = Math.min(maxTokens, affordable);
    }
    const worstCase = (): number => (price === undefined ? 0 : inputDollars() + (maxTokens * price.output) / 1_000_000);
    const worst = budget === undefined ? 0 : worstCase();
    if (budget !== undefined && this.dollars + this.reserved + worst > budget) {
      const inFlight = this.reserved === 0 ? "" : ` and $${this.reserved.toFixed(4)} in flight`;
      return this.stop(
        `The next model request could cost up to $${worst.toFixed(4)}; with $${this.dollars.toFixed(4)} spent${inFlight} that could exceed the budget of ${formatBudget(budget)}.`,
        "larger-budget",
      );
    }
    this.inFlight++;
    this.reserved += worst;
    let settled = false;
    return {
      maxTokens,
      settle: (usage, aborted = false) => {
        if (settled) return 0;
        settled = true;
        this.inFlight--;
        this.reserved -= worst;
        this.calls++;
        const charged = usage === undefined ? undefined : priceOf(usage.model, this.prices);
        const estimate = usage === undefined && aborted ? (budget === undefined ? worstCase() : worst) : 0;
        if (charged !== undefined) this.dollars += usageCost(usage!, charged);
        else this.dollars += estimate;
        this.onSpent?.(this.spent);
        if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
        return estimate;
      },
    };
  }

  /** Resolves when no request is in flight. */
  whenIdle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  private stop(reason: string, remedy: BudgetRemedy): Refusal {
    this.stopped = { reason, remedy };
    return this.stopped;
  }
}

function requestCharacters(params: MessageCreateParamsNonStreaming): number {
  const system = typeof params.system === "string" ? params.system.length : JSON.stringify(params.system ?? "").length;
  return (
    system +
    JSON.stringify(params.messages).length +
    (params.tools === undefined ? 0 : JSON.stringify(params.tools).length)
  );
}
