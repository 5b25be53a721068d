/**
 * A run of a compiled program: the `Runtime` its body receives. Each part of it is a module of its
 * own: the lifecycle (lifecycle.ts), inputs (inputs.ts), calls into used programs
 * (used-programs.ts), sessions, branches and reads (steps/); what is left here is the program's
 * structure: blocks, loops, bindings, judgments and the trail.
 *
 * A `Run` is also a handle on one step context: the body gets the root's; each branch, map item and
 * block call gets a child handle (`within`), a prototype child that differs only in its context
 * (and the `finallyBody` that brackets its `finally:` bodies).
 */
import { AssertScores } from "./scored-asserts.js";
import { EnvironmentError, RunStateError, WaitingForInput } from "../errors.js";
import { caughtFailure } from "../kernel/failed-steps.js";
import { preview } from "../kernel/events.js";
import { AgentSessions } from "../steps/agent-session.js";
import { Branching } from "../steps/branching.js";
import { choose, judge } from "../steps/judgment.js";
import { TextReader } from "../steps/reading.js";
import { Trail } from "../values/trail.js";
import type {
  AgentDefinition,
  Branch,
  FailurePolicy,
  FinallyBody,
  InputDefinition,
  JoinedBranches,
  JudgmentAsker,
  LastCall,
  LoopSequence,
  OptionIndex,
  ParallelOptions,
  ParallelResult,
  ProgramInfo,
  RacedBranches,
  Runtime,
  RunOptions,
  SessionRequest,
  Site,
  Value,
} from "../types.js";
import { text } from "../values/expressions.js";
import type { RunCore } from "../kernel/core.js";
import { RunInputs } from "./inputs.js";
import { RunLifecycle } from "./lifecycle.js";
import { FinishStamps, LastCallHolder } from "./last-call.js";
import { enterContext, legacyContext, type StepContext } from "../kernel/step-context.js";
import { UsedPrograms } from "./used-programs.js";

const DEFAULT_MAX_DEPTH = 100;

export class Run implements Runtime {
  /** The values each running block call offers its bindings' holders, counted once the call finishes (last-call.ts). */
  private readonly finishing = new WeakMap<StepContext, Array<(stamp: number) => void>>();
  private readonly finishStamps = new FinishStamps();
  private readonly lifecycle: RunLifecycle;
  private readonly sessions: AgentSessions;
  private readonly inputs: RunInputs;
  private readonly usedPrograms: UsedPrograms;
  private readonly branching: Branching;
  private readonly reader: TextReader;
  private executionIds = 0;
  /** The context this handle's calls run in (a child handle shadows it). */
  private readonly own: StepContext;
  /** A handle whose calls run in `context`: a prototype child of the handle the body receives. */
  private readonly within: (context: StepContext) => Run;
  readonly asserts = new AssertScores(() => this.core);
  readonly finallyBody: FinallyBody = finallyBodyOf(() => this.context);

  constructor(program: ProgramInfo, inputs: { readonly [name: string]: Value }, options: RunOptions) {
    this.lifecycle = new RunLifecycle(program, inputs, options);
    this.sessions = new AgentSessions(this.lifecycle);
    this.inputs = new RunInputs(this.lifecycle);
    this.usedPrograms = new UsedPrograms(this.lifecycle);
    this.reader = new TextReader(this.core);
    this.own = this.core.root;
    this.within = (context) => {
      const handle = Object.create(this, { own: { value: context } }) as Run;
      Object.defineProperty(handle, "finallyBody", { value: finallyBodyOf(() => handle.context) });
      return handle;
    };
    this.branching = new Branching(this.core, this.within);
  }

  /** Where this handle's calls run: its own context, or an older module's callback's (step-context.ts). */
  private get context(): StepContext {
    return legacyContext() ?? this.own;
  }

  private get core(): RunCore {
    return this.lifecycle.core;
  }

  /** Runs the program's body: `run-start`, the body, `run-end` with the usage totals. */
  execute<O>(body: (runtime: Runtime) => Promise<O>): Promise<O> {
    return this.lifecycle.execute(this, body);
  }

  /** Text, or with `returns:` the checked answer, whose type generated code names (`Runtime.session`'s overloads). */
  session<T extends Value>(request: SessionRequest): Promise<T> {
    return this.sessions.run(this.context, request, false) as Promise<T>;
  }

  resume<T extends Value>(agent: AgentDefinition, request: SessionRequest): Promise<T> {
    return this.sessions.run(this.context, { ...request, agent }, true) as Promise<T>;
  }

  keep<T extends Value>(source: string, value: T): T {
    this.context.trail.add(source, value);
    return value;
  }

  finalResult(value: Value): void {
    this.lifecycle.finalResult(value);
  }

  loop(): LoopSequence {
    const context = this.context;
    const enclosing = context.trail;
    const trail = enclosing.nested();
    context.trail = trail;
    let started = false;
    return {
      next: () => {
        if (started) trail.nextIteration();
        started = true;
      },
      end: () => {
        context.trail = enclosing;
      },
    };
  }

  lastCall(): LastCall {
    return new LastCallHolder((settle, by) => {
      const waiting = this.finishing.get(by instanceof Run ? by.context : this.context);
      // Offered outside a call `block` runs (never in generated code): it counts at once.
      if (waiting === undefined) settle(this.finishStamps.next());
      else waiting.push(settle);
    });
  }

  items(): LoopSequence {
    const context = this.context;
    const enclosing = context.trail;
    return {
      next: () => {
        context.trail = enclosing.nested();
      },
      end: () => {
        context.trail = enclosing;
      },
    };
  }

  async judge(
    at: Site,
    condition: string,
    scope: { readonly [name: string]: Value },
    asks: JudgmentAsker = "condition",
  ): Promise<boolean> {
    const ask = { text: condition, details: () => ({ condition, scope, asks }) };
    const context = this.context;
    const trail = context.trail.entries();
    const result = await this.core.step(context, "judge", at, "The judgment", ask, (signal) =>
      judge(this.core, { at, condition, asks, scope, trail }, signal),
    );
    this.core.emit({
      type: "judgment",
      at,
      asks,
      question: condition,
      answer: result.value ? "yes" : "no",
      reason: result.reason ?? "",
      trail: trail.map((entry) => entry.source),
    });
    return result.value;
  }

  async choose<Options extends readonly string[]>(
    at: Site,
    criteria: string,
    options: readonly [...Options],
    scope: { readonly [name: string]: Value },
  ): Promise<OptionIndex<Options>> {
    if (options.length === 0) throw this.core.error("choice has no options.", at);
    const ask = { text: criteria, options, details: () => ({ criteria, options, scope }) };
    const context = this.context;
    const trail = context.trail.entries();
    const result = await this.core.step(context, "choose", at, "The choice", ask, (signal) =>
      choose(this.core, { at, criteria, options, scope, trail }, signal),
    );
    this.core.emit({
      type: "judgment",
      at,
      asks: "choice",
      question: criteria,
      answer: options[result.value] ?? String(result.value),
      reason: result.reason ?? "",
      trail: trail.map((entry) => entry.source),
    });
    // Generated code binds names in every option, counting on one of them to run (a replayed answer included).
    if (!isOptionIndex(options, result.value))
      throw this.core.error(`the choice's answer ${result.value} names none of its ${options.length} options.`, at);
    return result.value;
  }

  input(at: Site, definition: InputDefinition): Promise<Value> {
    return this.inputs.input(this.context, at, definition);
  }

  /**
   * Rethrows what a program's `catch:` must not handle: a run waiting for input is not an error, and
   * a machine that cannot keep the run's state (a full disk) is not the program's to handle, and a
   * cancelled branch (a lost race, a failed sibling) stops; only its `finally:` runs.
   */
  catchable(error: unknown): void {
    if (error instanceof WaitingForInput || error instanceof EnvironmentError || error instanceof RunStateError)
      throw error;
    if (this.context.signal.aborted) throw error;
    const caught = caughtFailure(error);
    if (caught !== undefined) this.core.emit(caught);
  }

  call<O extends Value>(
    at: Site,
    name: string,
    run: (inputs: never, options?: RunOptions) => Promise<O>,
    inputs: { readonly [name: string]: Value },
  ): Promise<O> {
    return this.usedPrograms.call(this.context, at, name, run, inputs);
  }

  branches<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly onFail?: P },
    branches: T,
  ): JoinedBranches<T, P> {
    return this.branching.branches(this.context, at, options, branches);
  }

  first<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly onFail?: P },
    branches: T,
  ): Promise<RacedBranches<T, P>> {
    return this.branching.first(this.context, at, options, branches);
  }

  any<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly count?: number; readonly onFail?: P },
    branches: T,
  ): Promise<RacedBranches<T, P>> {
    return this.branching.any(this.context, at, options, branches);
  }

  parallel(at: Site, options: ParallelOptions, branches: readonly Branch[]): Promise<ParallelResult> {
    return this.branching.parallel(this.context, at, options, branches);
  }

  map<T extends Value = Value>(
    at: Site,
    items: readonly Value[],
    body: (item: Value, index: number, rt: Runtime) => Promise<T>,
  ): Promise<T[]> {
    return this.branching.map(this.context, at, items, body);
  }

  async block<T extends Value>(
    at: Site,
    name: string,
    maxDepth: number | undefined,
    body: (rt: Runtime) => Promise<T>,
  ): Promise<T> {
    const context = this.context;
    const parent = context.block;
    const depth = (parent?.depth ?? 0) + 1;
    const limit = maxDepth ?? DEFAULT_MAX_DEPTH;
    if (depth > limit)
      throw this.core.error(`RecursionLimitExceeded: block '${name}' exceeded max_depth ${limit}.`, at);
    const frame = { name, executionId: ++this.executionIds, depth, parentExecutionId: parent?.executionId ?? 0 };
    const folder = this.lifecycle.folder;
    folder?.enterBlock(frame);
    try {
      const { segment, anchor } = this.core.addresses.opening(context, `do:${name}`, at);
      const call = context.child(segment, context.signal, frame, anchor, new Trail());
      const offers: Array<(stamp: number) => void> = [];
      this.finishing.set(call, offers);
      const handle = this.within(call);
      // The body starts on a fresh stack: a generated block calls the next level synchronously, so
      // a recursion a few thousand calls deep overflowed the stack before any step ran.
      await Promise.resolve();
      const result = await enterContext(call, body.length > 0, () => body(handle));
      if (offers.length === 0) return result;
      // A call whose bindings are read outside the block ended: which call finished last is journaled.
      const ask = { text: `a call of block ${name} finished`, details: () => ({ block: name }) };
      const { value } = await this.core.step(call, "finish", at, `The call of ${name}`, ask, async () => ({
        value: this.finishStamps.next(),
        usage: [],
      }));
      for (const settle of offers) settle(Number(value));
      return result;
    } finally {
      folder?.exitBlock(frame);
    }
  }

  list(at: Site, value: Value): Promise<readonly Value[]> {
    return this.reader.list(this.context, at, value);
  }

  field<T extends Value>(at: Site, value: Value, index: Value, fields?: readonly string[]): Promise<T> {
    return this.reader.field(this.context, at, value, index, fields) as Promise<T>;
  }

  truthy(at: Site, value: Value): Promise<boolean> {
    return this.reader.truthy(this.context, at, value);
  }

  position(at: Site, statement: string): void {
    this.core.emit({ type: "position", at, statement });
  }

  iteration(at: Site, index: number): void {
    this.core.emit({ type: "loop-iteration", at, iteration: index });
  }

  bind<T extends Value>(at: Site, name: string, value: T): T {
    this.core.emit({ type: "binding", at, name, preview: preview(text(value)) });
    this.lifecycle.folder?.binding(at, name, value, this.context.block?.executionId);
    return value;
  }

  fail(at: Site, message?: string): Error {
    return this.core.error(message ?? "The program raised an error.", at);
  }

  caught(error: unknown): Value {
    return error instanceof Error ? error.message : String(error);
  }
}

/** `rt.finallyBody` of a handle: brackets a `finally:` body in the handle's context. */
function finallyBodyOf(context: () => StepContext): FinallyBody {
  return { enter: () => context().enterFinally(), exit: () => context().exitFinally() };
}

function isOptionIndex<Options extends readonly string[]>(
  options: readonly [...Options],
  index: number,
): index is OptionIndex<Options> {
  return Number.isInteger(index) && index >= 0 && index < options.length;
}
