/**
 * `npm run test:fast` is the edit loop, with a one-minute budget: there a property test runs half its
 * cases; `npm test` runs them all.
 */
export const inEditLoop = process.env["PROSEC_TEST_FAST"] === "1";

/** How many of a property test's `all` cases to run (at least one). */
export function caseCount(all: number): number {
  return inEditLoop ? Math.max(1, Math.ceil(all / 2)) : all;
}
