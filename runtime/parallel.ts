/**
 * `parallel:` join strategies and failure policies.
 *
 * - `all` (default): waits for every branch. `fail-fast` rejects at the first failure and cancels the
 *   other branches; `continue` puts `{ error: message }` where a branch failed; `ignore` puts `null`.
 * - `first`: the first branch to succeed wins and the others are cancelled (their slots hold `null`).
 *   A failure before that rejects under `fail-fast`; under `continue` / `ignore` it is recorded as
 *   above and the race goes on. If no branch succeeds, the result holds only errors / nulls.
 * - `any` with `count` (default 1): waits for `count` successes, then cancels the rest. Failures are
 *   expected here; the parallel rejects only once `count` successes became impossible, unless the
 *   policy is `continue` / `ignore`, which return what there is.
 *
 * A branch waiting for input (`WaitingForInput`) cancels nothing: the block waits, once every other
 * branch has settled, unless the others already decided it.
 *
 * Cancelling a branch aborts its signal, which the SDK request of every step in it carries, so the
 * model server sees the request closed.
 */
import { describeError, isAbortError, WaitingForInput } from "./errors.js";
import { sharedController } from "./signals.js";
import type { Branch, FailurePolicy, ParallelOptions, Value } from "./types.js";

/** Starts one branch in its own context; `signal` aborts when the branch is cancelled. */
export type BranchStarter = (branch: Branch, index: number, signal: AbortSignal) => Promise<Value>;

export interface ParallelOutcome {
  readonly results: Value[];
  readonly succeeded: number;
  readonly failed: number;
}

export async function runParallel(
  options: ParallelOptions,
  branches: readonly Branch[],
  parent: AbortSignal,
  start: BranchStarter,
): Promise<ParallelOutcome> {
  const join = options.join ?? "all";
  const policy: FailurePolicy = options.onFail ?? "fail-fast";
  const needed =
    join === "all" ? branches.length : join === "first" ? 1 : Math.min(options.count ?? 1, branches.length);
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

  try {
    return await new Promise<ParallelOutcome>((resolve, reject) => {
      let done = false;
      const finish = (error?: unknown): void => {
        if (done) return;
        done = true;
        cancelAll(new RaceDecided());
        const waits = waiting.filter((wait) => wait !== undefined);
        if (error === undefined && waits.length > 0 && succeeded < needed) error = waits.reduce(WaitingForInput.merge);
        if (error === undefined) resolve({ results, succeeded, failed });
        else reject(error);
      };
      if (branches.length === 0) finish();
      branches.forEach((branch, index) => {
        const signal = controllers[index]!.signal;
        start(branch, index, signal).then(
          (value) => {
            settled++;
            if (done) return;
            succeeded++;
            results[index] = value;
            if (join !== "all" && succeeded >= needed) finish();
            else if (settled === branches.length) finish();
          },
          (error: unknown) => {
            settled++;
            if (done) return;
            if (parent.aborted) return finish(parent.reason ?? error);
            if (signal.aborted && isAbortError(error)) return;
            if (error instanceof WaitingForInput) {
              waiting[index] = error;
              if (settled === branches.length) finish();
              return;
            }
            failed++;
            const impossible = branches.length - failed < needed;
            if (policy === "fail-fast" && (join !== "any" || impossible)) return finish(error);
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

/** The reason losers of a decided race are cancelled with. */
export class RaceDecided extends Error {
  override readonly name = "AbortError";
  constructor() {
    super("Another branch decided the race.");
  }
}
