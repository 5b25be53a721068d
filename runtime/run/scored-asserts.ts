/**
 * An eval program's asserts under `prosec eval` (DIALECT.md, "Evals"): each is a scored check that
 * reports whether it held, as an `assert` event, and lets the run go on. Only a program compiled for
 * an eval calls this; everywhere else an assert raises (`Runtime.fail`).
 */
import type { ScoredAsserts, Site } from "../types.js";
import type { RunCore } from "../kernel/core.js";

export class AssertScores implements ScoredAsserts {
  constructor(private readonly core: () => RunCore) {}

  check(at: Site, passed: boolean, id: string, message?: string): void {
    this.core().emit({ type: "assert", at, id, passed, ...(message === undefined ? {} : { message }) });
  }
}
