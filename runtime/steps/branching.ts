/**
 * `parallel:` blocks and `parallel for` / `map`: each branch or item runs in a step context of its
 * own (its key segment, anchor and trail), which it receives as a `Runtime` handle, under the
 * durability's `branch`, joined by the strategies and failure policies of parallel.ts.
 */
import pMap from "p-map";
import { WaitingForInput } from "../errors.js";
import { caughtFailure } from "../kernel/failed-steps.js";
import type { RunCore } from "../kernel/core.js";
import { sharedController } from "../signals.js";
import { enterContext, type StepContext } from "../kernel/step-context.js";
import type {
  Branch,
  FailurePolicy,
  JoinedBranches,
  ParallelOptions,
  ParallelResult,
  RacedBranches,
  Runtime,
  Site,
  Value,
} from "../types.js";
import type { ParallelSpan } from "../telemetry/run-telemetry.js";
import { race, startAll, type BlockEnded, type BranchStarter, type RaceOptions } from "./parallel.js";

export class Branching {
  constructor(
    private readonly core: RunCore,
    /** The handle whose calls run in a context. */
    private readonly within: (context: StepContext) => Runtime,
  ) {}

  branches<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    context: StepContext,
    at: Site,
    options: { readonly onFail?: P },
    branches: T,
  ): JoinedBranches<T, P> {
    const { start, span } = this.blockStart(context, at, branches.length);
    const ended: BlockEnded = (succeeded, failed) => this.core.emit({ type: "parallel-end", at, succeeded, failed });
    const promises = startAll(
      options.onFail,
      branches.length,
      context.signal,
      (index, signal) => start(branches[index]!, index, signal),
      ended,
      this.taken,
    );
    // Generated code joins the promises: the block's span ends once every branch settled.
    if (this.core.telemetry.enabled)
      void Promise.allSettled(promises).then((outcomes) =>
        span.end(outcomes.some((outcome) => outcome.status === "rejected")),
      );
    return promises as unknown as JoinedBranches<T, P>;
  }

  first<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    context: StepContext,
    at: Site,
    options: { readonly onFail?: P },
    branches: T,
  ): Promise<RacedBranches<T, P>> {
    return this.race(context, at, { ...options, join: "first" }, branches) as Promise<RacedBranches<T, P>>;
  }

  any<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    context: StepContext,
    at: Site,
    options: { readonly count?: number; readonly onFail?: P },
    branches: T,
  ): Promise<RacedBranches<T, P>> {
    return this.race(context, at, { ...options, join: "any" }, branches) as Promise<RacedBranches<T, P>>;
  }

  async parallel(
    context: StepContext,
    at: Site,
    options: ParallelOptions,
    branches: readonly Branch[],
  ): Promise<ParallelResult> {
    const { join, ...rest } = options;
    if (join === "first" || join === "any") return this.race(context, at, { ...rest, join }, branches);
    return Promise.all(this.branches(context, at, rest, branches));
  }

  async map<T extends Value>(
    context: StepContext,
    at: Site,
    items: readonly Value[],
    body: (item: Value, index: number, rt: Runtime) => Promise<T>,
  ): Promise<T[]> {
    // A body that declares no handle (an older module's) reads its context from the legacy storage.
    const takesHandle = body.length >= 3;
    const { segment, anchor } = this.core.addresses.opening(context, "map", at);
    const span = this.core.telemetry.parallel("map", at, `${context.path}/${segment}`, items.length);
    const controller = sharedController();
    const forward = (): void => controller.abort(context.signal.reason);
    context.signal.addEventListener("abort", forward, { once: true });
    this.core.emit({ type: "parallel-start", at, branches: items.length });
    let failed = 0;
    // Items waiting for input, by index: the others go on, and the loop waits when they are done.
    const waiting: Array<WaitingForInput | undefined> = [];
    // Items started: after a failure the loop completes once the cancelled ones ran their `finally`.
    const started: Array<Promise<unknown>> = [];
    try {
      const results = await pMap(
        items,
        (item, index) => {
          const child = context.child(
            `${segment}/i${index}`,
            controller.signal,
            context.block,
            `${anchor}/i${index}`,
            context.trail.nested(),
          );
          const running = this.core.durability.branch(child.path, () =>
            span.branch(index, () => enterContext(child, takesHandle, () => body(item, index, this.within(child)))),
          );
          started.push(running.catch(() => undefined));
          return running.catch((error: unknown) => {
            if (error instanceof WaitingForInput) {
              waiting[index] = error;
              return null;
            }
            failed++;
            controller.abort(error);
            throw error;
          });
        },
        { concurrency: this.core.limiter.limit },
      );
      const waits = waiting.filter((wait) => wait !== undefined);
      if (waits.length > 0) throw waits.reduce(WaitingForInput.merge);
      // Only an item waiting for input is `null` in place of its result, and then the loop waits.
      return results as T[];
    } catch (error) {
      await Promise.all(started);
      throw error;
    } finally {
      context.signal.removeEventListener("abort", forward);
      span.end(failed > 0);
      this.core.emit({ type: "parallel-end", at, succeeded: items.length - failed, failed });
    }
  }

  /** A branch's failure the block goes on without: journaled and told as a caught one (failed-steps.ts). */
  private readonly taken = (error: unknown): void => {
    const caught = caughtFailure(error);
    if (caught !== undefined) this.core.emit(caught);
  };

  private async race(
    context: StepContext,
    at: Site,
    options: RaceOptions,
    branches: readonly Branch[],
  ): Promise<Value[]> {
    const { start, span } = this.blockStart(context, at, branches.length);
    let failed = true;
    try {
      const outcome = await race(options, branches, context.signal, start, this.taken);
      failed = false;
      this.core.emit({ type: "parallel-end", at, succeeded: outcome.succeeded, failed: outcome.failed });
      return outcome.results;
    } finally {
      span.end(failed);
    }
  }

  /** A `parallel:` block's start: its segment and anchor, and how each branch runs in a context of its own. */
  private blockStart(context: StepContext, at: Site, count: number): { start: BranchStarter; span: ParallelSpan } {
    const kind = "parallel";
    const { segment, anchor } = this.core.addresses.opening(context, kind, at);
    const span = this.core.telemetry.parallel(kind, at, `${context.path}/${segment}`, count);
    this.core.emit({ type: "parallel-start", at, branches: count });
    const start: BranchStarter = (branch, index, signal) => {
      const child = context.child(
        `${segment}/b${index}`,
        signal,
        context.block,
        `${anchor}/b${index}`,
        context.trail.nested(),
      );
      return this.core.durability.branch(child.path, () =>
        span.branch(index, () => enterContext(child, branch.length > 0, () => branch(this.within(child), signal))),
      );
    };
    return { start, span };
  }
}
