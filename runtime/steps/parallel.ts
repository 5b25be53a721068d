/**
 * `parallel:` join strategies and failure policies.
 *
 * - `all` (default, `startAll`): one promise per branch, which generated code joins with
 *   `Promise.all`. `fail-fast` rejects the failed branch's promise and cancels the other branches;
 *   `continue` resolves a failed branch to `{ error: message }`; `ignore` to `null`.
 * - `first` (`race`): the first branch to succeed wins and the others are cancelled (their slots hold
 *   `null`). A failure before that rejects under `fail-fast`; under `continue` / `ignore` it is
 *   recorded as above and the race goes on. If no branch succeeds, the result holds only errors / nulls.
 * - `any` with `count` (default 1, `race`): waits for `count` successes, then cancels the rest.
 *   Failures are expected here; the race rejects only once `count` successes became impossible,
 *   unless the policy is `continue` / `ignore`, which return what there is.
 *
 * A branch failure the block goes on without (`continue`, `ignore`, a race still winnable) is taken as
 * a `catch:` takes one (`FailureTaken`): journaled, so a resumed run takes the same path, and told.
 *
 * A branch waiting for input (`WaitingForInput`) cancels nothing: the block waits, once every other
 * branch has settled, unless the others already decided it.
 *
 * Cancelling a branch aborts its signal, which the SDK request of every step in it carries, so the
 * model server sees the request closed. The branch stops at its next step boundary and runs its
 * `finally:` bodies; the block completes, with its value or its error, only after every branch has
 * finished, so an enclosing `catch:` starts after the cancelled branches' `finally`.
 */
import { describeError, isAbortError, ProseError, WaitingForInput } from "../errors.js";
import { sharedController } from "../signals.js";
import type { Branch, FailurePolicy, Value } from "../types.js";

/** Starts one branch in its own context; `signal` aborts when the branch is cancelled. */
export type BranchStarter = (branch: Branch, index: number, signal: AbortSignal) => Promise<Value>;

export interface ParallelOutcome {
  readonly results: Value[];
  readonly succeeded: number;
  readonly failed: number;
}

/** How a race is decided: by the first success, or by `count` of them. */
export interface RaceOptions {
  readonly join: "first" | "any";
  readonly count?: number;
  readonly onFail?: FailurePolicy;
}

/** Ends a block's branches: the `parallel-end` event, once the block is decided without failing. */
export type BlockEnded = (succeeded: number, failed: number) => void;

/** A branch's failure the block goes on without, as a `catch:` takes one. */
export type FailureTaken = (error: unknown) => void;

/**
 * `all`: starts every branch and returns one promise per branch, each settled by the failure
 * policy. `ended` runs before the last promise resolves, when no branch failed the block.
 */
export function startAll(
  onFail: FailurePolicy | undefined,
  count: number,
  parent: AbortSignal,
  start: (index: number, signal: AbortSignal) => Promise<Value>,
  ended: BlockEnded,
  taken: FailureTaken = () => {},
): Promise<Value>[] {
  const policy = onFail ?? "fail-fast";
  const controllers = Array.from({ length: count }, () => sharedController());
  const cancelAll = (reason?: unknown): void => controllers.forEach((controller) => controller.abort(reason));
  const forward = (): void => cancelAll(parent.reason);
  parent.addEventListener("abort", forward, { once: true });
  // Branches waiting for input, by index: they reject once every other branch has settled.
  const waiting: Array<WaitingForInput | undefined> = [];
  let decided = false;
  let succeeded = 0;
  let failed = 0;
  let settled = 0;
  let everySettled: () => void = () => {};
  const allSettled = new Promise<void>((resolve) => (everySettled = resolve));
  const settle = (): void => {
    if (++settled < count) return;
    parent.removeEventListener("abort", forward);
    if (!decided && !waiting.some((wait) => wait !== undefined)) {
      cancelAll(new RaceDecided());
      ended(succeeded, failed);
    }
    everySettled();
  };
  if (count === 0) settle();

  const branch = async (index: number): Promise<Value> => {
    const signal = controllers[index]!.signal;
    let value: Value;
    try {
      value = await start(index, signal);
    } catch (error) {
      if (decided || parent.aborted) {
        settle();
        if (!decided) throw parent.reason ?? error;
        // Cancelled by a fail-fast sibling: its error is the block's, given once every branch finished.
        await allSettled;
        return null;
      }
      if (error instanceof WaitingForInput) {
        waiting[index] = error;
        settle();
        await allSettled;
        // A fail-fast failure decided the block meanwhile: that failure is the block's.
        if (decided) return null;
        throw waiting.filter((wait) => wait !== undefined).reduce(WaitingForInput.merge);
      }
      failed++;
      if (policy === "fail-fast") {
        decided = true;
        cancelAll(new RaceDecided());
        settle();
        // The cancelled branches run their `finally` first: an enclosing `catch` starts after them.
        await allSettled;
        throw error;
      }
      taken(error);
      settle();
      return policy === "continue" ? { error: describeError(error) } : null;
    }
    succeeded++;
    settle();
    // A branch that succeeded before a fail-fast failure resolves at once: `Promise.all` waits for the failure.
    return value;
  };
  return controllers.map((_, index) => branch(index));
}

/** `first` / `any`: the branches race until the join is decided; the result is index-aligned. */
export async function race(
  options: RaceOptions,
  branches: readonly Branch[],
  parent: AbortSignal,
  start: BranchStarter,
  taken: FailureTaken = () => {},
): Promise<ParallelOutcome> {
  const join = options.join;
  const policy: FailurePolicy = options.onFail ?? "fail-fast";
  const needed = join === "first" ? 1 : Math.min(options.count ?? 1, branches.length);
  const controllers = branches.map(() => sharedController());
  const cancelAll = (reason?: unknown): void => controllers.forEach((controller) => controller.abort(reason));
  const forward = (): void => cancelAll(parent.reason);
  parent.addEventListener("abort", forward, { once: true });

  const results: Value[] = branches.map(() => null);
  // Branches waiting for input, by index: the block waits once every other branch has finished.
  const waiting: Array<WaitingForInput | undefined> = branches.map(() => undefined);
  let succeeded = 0;
  let failed = 0;
  let settled = 0;
  let everySettled: () => void = () => {};
  const allSettled = new Promise<void>((resolve) => (everySettled = resolve));
  const settleOne = (): void => {
    if (++settled === branches.length) everySettled();
  };
  if (branches.length === 0) everySettled();

  try {
    return await new Promise<ParallelOutcome>((resolve, reject) => {
      let done = false;
      // The block completes once every branch finished: the cancelled ones run their `finally` first.
      const finish = (error?: unknown): void => {
        if (done) return;
        done = true;
        cancelAll(new RaceDecided());
        const waits = waiting.filter((wait) => wait !== undefined);
        if (error === undefined && waits.length > 0 && succeeded < needed) error = waits.reduce(WaitingForInput.merge);
        void allSettled.then(() => (error === undefined ? resolve({ results, succeeded, failed }) : reject(error)));
      };
      if (branches.length === 0) finish();
      branches.forEach((branch, index) => {
        const signal = controllers[index]!.signal;
        start(branch, index, signal).then(
          (value) => {
            settleOne();
            if (done) return;
            succeeded++;
            results[index] = value;
            if (succeeded >= needed) finish();
            else if (settled === branches.length) finish();
          },
          (error: unknown) => {
            settleOne();
            if (done) return;
            if (parent.aborted) return finish(parent.reason ?? error);
            if (signal.aborted && isAbortError(error)) return;
            // A branch an earlier execution's decision cancelled, replayed (DBOS) before this execution
            // decided the race again: neither a success nor a failure; the other branches decide.
            if (cancelledEarlier(error)) {
              if (settled === branches.length) finish();
              return;
            }
            if (error instanceof WaitingForInput) {
              waiting[index] = error;
              if (settled === branches.length) finish();
              return;
            }
            failed++;
            const impossible = branches.length - failed < needed;
            if (policy === "fail-fast" && (join !== "any" || impossible)) return finish(error);
            taken(error);
            results[index] = policy === "continue" ? { error: describeError(error) } : null;
            if (settled === branches.length || (join === "any" && impossible && policy === "fail-fast")) finish();
          },
        );
      });
    });
  } finally {
    parent.removeEventListener("abort", forward);
  }
}

/** A step's cancellation that this execution did not cause: its replayed abort, or a step failed by it. */
function cancelledEarlier(error: unknown): boolean {
  return isAbortError(error) || (error instanceof ProseError && isAbortError(error.cause));
}

/** The reason losers of a decided race are cancelled with. */
export class RaceDecided extends Error {
  override readonly name = "AbortError";
  constructor() {
    super("Another branch decided the race.");
  }
}
