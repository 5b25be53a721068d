/**
 * Steps that failed and were caught. A step's failure (an API error after the retries, a refusal, an
 * answer that failed validation, a time limit) is not journaled when it happens: a run that stops on
 * it is resumed by running the step again. Once a program's `catch:` takes the error (`catchable`),
 * the run has gone down the path of the failure, so it is journaled then, at the step's address: a resumed run and a `prosec test` replay throw the same error again and take the same
 * path. A typed result that fails its `returns:` check fails its step the same way.
 */
// The error classes alone: the SDK's index loads its whole client, and `prosec check` reaches this module.
import { APIError } from "@anthropic-ai/sdk/core/error";
import { AnswerFailure, ProseError } from "../errors.js";
import type { FailedStep, FailureCause, RecordedStep, Site, StepAddress, StepKind, Usage } from "../types.js";
import type { PendingEvent } from "../types/internal.js";

/** A failed step, waiting to be taken by a `catch:`. */
export interface PendingFailure {
  readonly address: StepAddress;
  readonly kind: StepKind;
  readonly at: Site;
  readonly label: string;
  readonly failed: FailedStep;
  /** The calls it made before it failed, which its record keeps. */
  readonly usage: readonly Usage[];
  /** Replayed from a record: nothing to journal again. */
  readonly replayed: boolean;
  /** Journals it (the run's step store), once. */
  readonly record: (step: RecordedStep) => void;
}

const pending = new WeakMap<Error, PendingFailure>();

/** Marks `error`, which a step of the run is about to throw, as that step's failure. */
export function failedStepError(error: ProseError, failure: PendingFailure): ProseError {
  pending.set(error, failure);
  return error;
}

/**
 * The failed step `error` comes from (it, or an error it wraps: a block's or a called program's),
 * taken once: a rethrown error caught again is not journaled twice.
 */
export function takeFailure(error: unknown): PendingFailure | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const failure = pending.get(cause);
    if (failure !== undefined) {
      pending.delete(cause);
      return failure;
    }
  }
  return undefined;
}

/**
 * Takes the failed step `error` comes from for a `catch:`, or for a `parallel` block whose failure
 * policy goes on without the branch: journals it (unless it was replayed) and returns the event that
 * tells of it; undefined when `error` is no step's failure.
 */
export function caughtFailure(error: unknown): Extract<PendingEvent, { readonly type: "step-caught" }> | undefined {
  const failure = takeFailure(error);
  if (failure === undefined) return undefined;
  const { kind, failed, usage } = failure;
  if (!failure.replayed) failure.record({ kind, value: null, usage, failed });
  return {
    type: "step-caught",
    at: failure.at,
    label: failure.label,
    message: failed.reason,
    cause: failed.cause,
    replayed: failure.replayed,
  };
}

/** What a journal keeps of a step's error. */
export function failureOf(error: ProseError, timedOut: boolean): FailedStep {
  return {
    reason: error.reason,
    ...(error.file === undefined ? {} : { file: error.file }),
    ...(error.line === undefined ? {} : { line: error.line }),
    ...(error.column === undefined ? {} : { column: error.column }),
    ...(error.session === undefined ? {} : { session: error.session }),
    cause: timedOut ? "timeout" : causeOf(error),
  };
}

/** The error a recorded failure throws: the same text, at the same place. */
export function replayedError(failed: FailedStep): ProseError {
  return new ProseError(failed.reason, {
    ...(failed.file === undefined ? {} : { file: failed.file }),
    ...(failed.line === undefined || failed.column === undefined
      ? {}
      : { at: { line: failed.line, column: failed.column } }),
    ...(failed.session === undefined ? {} : { session: failed.session }),
  });
}

function causeOf(error: unknown): FailureCause {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof AnswerFailure) return cause.problem;
    if (cause instanceof APIError) return "api-error";
  }
  return "error";
}
