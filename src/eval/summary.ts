/**
 * An eval's figures from its finished cases: per assert and overall, the pass rate with its 95%
 * Wilson interval; the cases that errored, counted apart (neither a pass nor a fail); cost and time.
 */
import { casePassed, type CaseResult } from "./case-result.js";
import { wilsonInterval } from "./wilson.js";

export interface Rate {
  readonly passes: number;
  /** Scored cases that reached it. */
  readonly trials: number;
  /** passes / trials; 0 when there were none. */
  readonly rate: number;
  /** The 95% Wilson interval. */
  readonly low: number;
  readonly high: number;
}

export interface AssertRate extends Rate {
  readonly id: string;
  /** Where it is in the eval program (the line may move; the id does not). */
  readonly line: number;
}

export interface EvalSummary {
  readonly evalId: string;
  readonly program: string;
  readonly repeat: number;
  /** Cases times repeats the eval has. */
  readonly planned: number;
  /** Finished: scored plus errors. */
  readonly finished: number;
  readonly scored: number;
  readonly errors: number;
  /** Scored cases every assert of which held. */
  readonly overall: Rate;
  readonly asserts: readonly AssertRate[];
  /** US dollars of every finished case (those whose models have prices). */
  readonly dollars: number;
  /** The cases' own times added up, milliseconds. */
  readonly caseMs: number;
  readonly results: readonly CaseResult[];
}

export function rateOf(passes: number, trials: number): Rate {
  const { low, high } = wilsonInterval(passes, trials);
  return { passes, trials, rate: trials === 0 ? 0 : passes / trials, low, high };
}

export function summarize(
  head: { readonly evalId: string; readonly program: string; readonly repeat: number; readonly planned: number },
  results: readonly CaseResult[],
): EvalSummary {
  const scored = results.filter((result) => result.status === "scored");
  const asserts = new Map<string, { line: number; passes: number; trials: number }>();
  for (const result of scored)
    for (const outcome of result.asserts) {
      const tally = asserts.get(outcome.id) ?? { line: outcome.line, passes: 0, trials: 0 };
      tally.trials++;
      if (outcome.passed) tally.passes++;
      asserts.set(outcome.id, tally);
    }
  return {
    ...head,
    finished: results.length,
    scored: scored.length,
    errors: results.length - scored.length,
    overall: rateOf(scored.filter(casePassed).length, scored.length),
    asserts: [...asserts.entries()]
      .map(([id, tally]) => ({ id, line: tally.line, ...rateOf(tally.passes, tally.trials) }))
      .sort((a, b) => a.line - b.line || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    dollars: results.reduce((sum, result) => sum + (result.dollars ?? 0), 0),
    caseMs: results.reduce((sum, result) => sum + result.ms, 0),
    results,
  };
}
