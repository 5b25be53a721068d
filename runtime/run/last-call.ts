/**
 * A block's binding read outside the block (DIALECT.md, "Scoping and names") reads the value that
 * the block's most recently *finished* call gave it. Calls that run in parallel finish in any order,
 * and replayed ones (a resumed run) in another order again: so when such a call ends, which call
 * that was is a journaled step (`finish`), whose value is a stamp that grows from call to call and
 * from run to run (the wall clock, kept increasing). A holder keeps the value of the call with the
 * highest stamp, so a resumed run reads what the first run read.
 */
import type { LastCall, Runtime, Value } from "../types.js";

export class LastCallHolder implements LastCall {
  private stamp = Number.NEGATIVE_INFINITY;
  private current: Value = null;

  constructor(private readonly offered: (settle: (stamp: number) => void, by: Runtime | undefined) => void) {}

  get value(): Value {
    return this.current;
  }

  offer(value: Value, rt?: Runtime): void {
    this.offered((stamp) => {
      if (stamp <= this.stamp) return;
      this.stamp = stamp;
      this.current = value;
    }, rt);
  }
}

/** Stamps for finished calls: the wall clock in milliseconds, strictly increasing within a run. */
export class FinishStamps {
  private last = Number.NEGATIVE_INFINITY;

  next(): number {
    this.last = Math.max(Date.now(), this.last + 0.001);
    return this.last;
  }
}
