/**
 * The Wilson score interval of a pass rate: unlike the normal approximation it stays inside [0, 1]
 * and is honest for small samples and for rates of 0 or 1, which is what evals have (a few dozen
 * cases, asserts that almost always hold).
 */

/** The two-sided 95% normal quantile. */
export const Z_95 = 1.959963984540054;

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** The 95% (by default) Wilson interval of `passes` out of `trials`; [0, 1] when there were none. */
export function wilsonInterval(passes: number, trials: number, z = Z_95): Interval {
  if (trials === 0) return { low: 0, high: 1 };
  const rate = passes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (rate + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((rate * (1 - rate)) / trials + z2 / (4 * trials * trials));
  // At 0 and 1 the bound is exactly 0 or 1; rounding must not leave it a hair beyond.
  return {
    low: passes === 0 ? 0 : Math.max(0, centre - half),
    high: passes === trials ? 1 : Math.min(1, centre + half),
  };
}
