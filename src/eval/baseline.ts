/**
 * Comparing an eval with a baseline (an earlier eval's `--save-baseline` file) and with `--min`. The
 * rule (issue 46): an assert fails when its new upper 95% bound falls below the baseline's lower bound
 * (the drop is more than both intervals allow), or below `--min`. Asserts are matched by id (their
 * message, else their structural position), never by line. A pass rate that moved within the margins
 * is reported, not failed: with judged asserts a few cases of noise is the normal state.
 */
import { readFileSync } from "node:fs";
import { UsageError } from "../errors.js";
import { writeFileAtomically } from "../../runtime/stored-runs.js";
import type { EvalSummary, Rate } from "./summary.js";

export const BASELINE_FORMAT = "prosec-eval-baseline";

/** What `--save-baseline` writes: the eval's rates, nothing of its cases. */
export interface Baseline {
  readonly format: typeof BASELINE_FORMAT;
  readonly version: 1;
  readonly evalId: string;
  readonly program: string;
  readonly overall: Rate;
  readonly asserts: readonly (Rate & { readonly id: string })[];
}

/** `held`: no baseline to compare with, and not below `--min`. */
export type ChangeKind = "regressed" | "below-min" | "dropped" | "rose" | "same" | "new" | "missing" | "held";

export interface AssertChange {
  /** The assert's id, or `overall`. */
  readonly id: string;
  readonly kind: ChangeKind;
  /** Whether this change fails the eval. */
  readonly fails: boolean;
  readonly before?: Rate;
  readonly after?: Rate;
  /** after.rate − before.rate. */
  readonly delta?: number;
}

export interface Comparison {
  readonly failed: boolean;
  readonly baseline?: string;
  readonly min?: number;
  readonly changes: readonly AssertChange[];
}

export function baselineOf(summary: EvalSummary): Baseline {
  const rate = ({ passes, trials, rate, low, high }: Rate): Rate => ({ passes, trials, rate, low, high });
  return {
    format: BASELINE_FORMAT,
    version: 1,
    evalId: summary.evalId,
    program: summary.program,
    overall: rate(summary.overall),
    asserts: summary.asserts.map((assert) => ({ id: assert.id, ...rate(assert) })),
  };
}

export function saveBaseline(file: string, summary: EvalSummary): void {
  writeFileAtomically(file, `${JSON.stringify(baselineOf(summary), null, 2)}\n`);
}

export function readBaseline(file: string): Baseline {
  let json: Partial<Baseline>;
  try {
    json = JSON.parse(readFileSync(file, "utf8")) as Partial<Baseline>;
  } catch (error) {
    throw new UsageError(
      `--baseline ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "there is no such file" : "it is not JSON"}`,
    );
  }
  if (
    json.format !== BASELINE_FORMAT ||
    json.version !== 1 ||
    !Array.isArray(json.asserts) ||
    json.overall === undefined
  )
    throw new UsageError(`--baseline ${file}: not a baseline written by prosec eval --save-baseline`);
  return json as Baseline;
}

export function compare(
  summary: EvalSummary,
  baseline: { readonly file: string; readonly data: Baseline } | undefined,
  min: number | undefined,
): Comparison {
  const before = new Map((baseline?.data.asserts ?? []).map((assert) => [assert.id, assert]));
  const changes: AssertChange[] = [];
  const judge = (id: string, after: Rate, earlier: Rate | undefined): AssertChange => {
    const belowMin = min !== undefined && after.high < min;
    const regressed = earlier !== undefined && after.high < earlier.low;
    const delta = earlier === undefined ? undefined : after.rate - earlier.rate;
    const kind: ChangeKind = regressed
      ? "regressed"
      : belowMin
        ? "below-min"
        : baseline === undefined
          ? "held"
          : earlier === undefined
            ? "new"
            : delta! < 0
              ? "dropped"
              : delta! > 0
                ? "rose"
                : "same";
    return {
      id,
      kind,
      fails: regressed || belowMin,
      after,
      ...(earlier === undefined ? {} : { before: earlier, delta }),
    };
  };
  for (const assert of summary.asserts) changes.push(judge(assert.id, assert, before.get(assert.id)));
  if (baseline !== undefined)
    for (const [id, earlier] of before)
      if (!summary.asserts.some((assert) => assert.id === id))
        changes.push({ id, kind: "missing", fails: false, before: earlier });
  changes.push(judge("overall", summary.overall, baseline?.data.overall));
  return {
    failed: changes.some((change) => change.fails),
    ...(baseline === undefined ? {} : { baseline: baseline.file }),
    ...(min === undefined ? {} : { min }),
    changes,
  };
}
