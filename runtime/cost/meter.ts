/**
 * The run's meter: what its model calls have spent (dollars at the price table's rates, requests),
 * kept across a resumed run's processes, and the limits `RunOptions.budget` and `maxCalls` put on it.
 *
 * Before a request goes out, its worst case is reserved: its input (estimated high, at a third of its
 * characters, priced as a cache write when caching is on) and its `max_tokens` of output. A request
 * whose worst case, with what was spent and what is in flight, could cross a limit is not sent: the
 * meter stops the run. The requests already in flight finish (they are paid for) and then the run is
 * stopped as an interrupt is, so it can be resumed with a larger budget.
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

export interface Reservation {
  /** The request is over: its usage when it was answered (a failed request is not billed). */
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

  /** Reserves a request's worst case, or says why it may not go out. */
  admit(params: MessageCreateParamsNonStreaming): Reservation | Refusal {
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
    const worstCase = (): number => {
      if (price === undefined) return 0;
      const input = Math.ceil(requestCharacters(params) / 3) * (this.caching ? CACHE_WRITE_MULTIPLIER : 1);
      return (input * price.input + params.max_tokens * price.output) / 1_000_000;
    };
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
