/**
 * Calls into used programs (`use "..." as name`, `Runtime.call`): the called program starts a run of
 * its own through its module's `run()`, which finds here the run that called it. The two share the
 * client, the limits and the clock; the called program's steps are recorded under the call's key
 * and its files go to a folder under the caller's `imports/`.
 */
import type { RunOptions, Site, Value } from "../types.js";
import type { RunScope } from "../kernel/scope.js";
import type { StepContext } from "../kernel/step-context.js";

/** A program called from another program's run. */
export interface Caller {
  readonly run: RunScope;
  /** The call's site: the called program's steps are recorded under it. */
  readonly site: string;
  /** The call's content anchor, the prefix of the called program's anchors. */
  readonly anchor: string;
  /** The call's structure, the prefix of the called program's structures. */
  readonly structure: string;
  /** Its folder under the caller's `imports/`. */
  readonly folderName: string;
  /** Set by a called program that declares no outputs: what the call returns instead of `{}`. */
  finalResult?: { readonly value: Value };
}

/** Options objects made by `call`, so that `startRun` knows the run it starts is a nested one. */
const callers = new WeakMap<RunOptions, Caller>();

/** The call that starts a run with these options, if it is a nested one. */
export function callerOf(options: RunOptions): Caller | undefined {
  return callers.get(options);
}

export class UsedPrograms {
  private readonly callCounts = new Map<string, number>();

  constructor(private readonly scope: RunScope) {}

  async call<O extends Value>(
    context: StepContext,
    at: Site,
    name: string,
    run: (inputs: never, options?: RunOptions) => Promise<O>,
    inputs: { readonly [name: string]: Value },
  ): Promise<O> {
    const { core } = this.scope;
    const { site, anchor, structure } = core.addresses.call(context, name, at);
    const count = (this.callCounts.get(name) ?? 0) + 1;
    this.callCounts.set(name, count);
    const options: RunOptions = { ...this.scope.options, signal: context.signal };
    const caller: Caller = {
      run: this.scope,
      site,
      anchor,
      structure,
      folderName: count === 1 ? name : `${name}__${count}`,
    };
    callers.set(options, caller);
    // An argument may be any value (a list, a record): the called program's `Inputs` types what apps pass.
    const outputs = await core.telemetry.use(at, name, site, () => run(inputs as never, options));
    // A program without outputs returns its final result (DIALECT.md, the `use` rule).
    return caller.finalResult === undefined ? outputs : (caller.finalResult.value as O);
  }
}
