/**
 * Types the runtime's layers share that are no part of `prosec/runtime`'s face: `types.ts` does not
 * re-export this file. They sit in the contract layer so that the model, the store and telemetry
 * can name them without importing the kernel.
 */
import type { RunEvent } from "./events.js";

/** The innermost block invocation a step runs in: what a model is told of its execution scope. */
export interface BlockFrame {
  readonly name: string;
  readonly executionId: number;
  readonly depth: number;
  readonly parentExecutionId: number;
}

/** A RunEvent before the run stamps its time. */
export type PendingEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, "time"> : never) : never;
