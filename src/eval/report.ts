/**
 * The eval's report, one object: what `--json` prints and the HTML page embeds. The terminal table
 * and the page are views of it (terminal-report.ts, html-report.ts).
 */
import type { CaseResult } from "./case-result.js";
import type { Comparison } from "./baseline.js";
import type { EvalSummary, Rate } from "./summary.js";

/** The summary's figures (without its per-case times and results, which `cases` carries), and more. */
export interface EvalReport extends Omit<EvalSummary, "caseMs" | "results"> {
  readonly format: "prosec-eval-report";
  readonly version: 1;
  /** This process's wall time, milliseconds. */
  readonly wallMs: number;
  readonly comparison?: Comparison;
  /** Why cases are left unfinished (`prosec eval --resume EVAL_ID` goes on). */
  readonly stopped?: { readonly why: "budget" | "interrupted"; readonly message: string };
  readonly cases: readonly CaseResult[];
}

export function reportOf(
  summary: EvalSummary,
  wallMs: number,
  comparison: Comparison | undefined,
  stopped: EvalReport["stopped"],
): EvalReport {
  const { caseMs: _caseMs, results, ...figures } = summary;
  return {
    format: "prosec-eval-report",
    version: 1,
    ...figures,
    wallMs,
    ...(comparison === undefined ? {} : { comparison }),
    ...(stopped === undefined ? {} : { stopped }),
    cases: results,
  };
}

/** `67% (21%–94%)`. */
export function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

export function formatRate(rate: Rate): string {
  return `${rate.passes}/${rate.trials}  ${percent(rate.rate)} (${percent(rate.low)}–${percent(rate.high)})`;
}

export function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export function formatDollars(dollars: number | undefined): string {
  if (dollars === undefined) return "-";
  return dollars === 0 ? "$0" : dollars < 0.01 ? `$${dollars.toPrecision(2)}` : `$${dollars.toFixed(2)}`;
}

/** What a change to the baseline reads as: `fell 40 points (below the baseline's interval)`. */
export function describeChange(change: Comparison["changes"][number]): string {
  const points = change.delta === undefined ? "" : `${Math.abs(Math.round(change.delta * 100))} points`;
  switch (change.kind) {
    case "regressed":
      return `fell ${points}: its upper bound ${percent(change.after!.high)} is below the baseline's lower bound ${percent(change.before!.low)}`;
    case "below-min":
      return `its upper bound ${percent(change.after!.high)} is below --min`;
    case "dropped":
      return `fell ${points}, within the intervals`;
    case "rose":
      return `rose ${points}`;
    case "same":
      return "unchanged";
    case "new":
      return "new (not in the baseline)";
    case "missing":
      return "in the baseline, not reached now";
    case "held":
      return `its upper bound ${percent(change.after!.high)} is not below --min`;
  }
}
