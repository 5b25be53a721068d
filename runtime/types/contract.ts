/**
 * The contract between generated workflow modules and the runtime: the `Runtime` a program's body
 * receives, with the values and program metadata of `program.ts`. Generated code imports only from
 * `prosec/runtime`; anything here is public API: additions are fine, changes break every committed
 * workflow.
 */
import type { FailurePolicy, JoinStrategy } from "../vocabulary.js";
import type { JudgmentAsker } from "./events.js";
import type { AgentDefinition, InputDefinition, SessionRequest, Site, TypedSessionRequest, Value } from "./program.js";
import type { RunOptions } from "./run-options.js";

export interface ParallelOptions {
  readonly join?: JoinStrategy;
  /** With `"any"`: how many branches must succeed (default 1). */
  readonly count?: number;
  readonly onFail?: FailurePolicy;
}

/**
 * One `parallel:` branch. `rt` is the branch's own handle: its calls run in the branch's step context
 * (keys, trail, cancellation). `signal` aborts when a `"first"` / `"any"` race is decided. A branch
 * that declares no parameter calls the outer `rt` (modules generated before 0.3): it still runs, in
 * an AsyncLocalStorage that carries its context (slower: see runtime/README.md).
 */
export type Branch<T extends Value = Value> = (rt: Runtime, signal: AbortSignal) => Promise<T>;

/**
 * Result of `Runtime.parallel`, index-aligned with the branches. A branch that failed under
 * `on-fail: "continue"` holds an error record `{ error: message }`; under `"ignore"` or when it lost
 * a race it holds `null`.
 */
export type ParallelResult = readonly Value[];

/** What a failed branch holds under `on-fail: "continue"`. */
export type FailureRecord = { readonly error: string };

/** A branch's value after the join under failure policy `P`: under `continue` an error record, under `ignore` `null`. */
export type BranchValue<T, P extends FailurePolicy> = P extends "continue"
  ? T | FailureRecord
  : P extends "ignore"
    ? T | null
    : T;

/** `Runtime.branches`: one promise per branch, in order, for `Promise.all`. */
export type JoinedBranches<T extends readonly Branch[], P extends FailurePolicy> = {
  -readonly [K in keyof T]: Promise<BranchValue<Awaited<ReturnType<T[K]>>, P>>;
};

/** `Runtime.first` / `Runtime.any`: every slot, in order; a branch that lost the race holds `null`. */
export type RacedBranches<T extends readonly Branch[], P extends FailurePolicy> = {
  -readonly [K in keyof T]: BranchValue<Awaited<ReturnType<T[K]>>, P> | null;
};

export interface LoopSequence {
  next(): void;
  end(): void;
}

/**
 * Where the outside reads a block's binding (DIALECT.md, "Scoping and names"): the value the block's
 * most recently finished call gave it, `null` before any call finished.
 */
export interface LastCall {
  readonly value: Value;
  /**
   * Called as a call of the block ends: its value, which counts once the call has finished. `rt` is
   * the call's handle (modules generated before 0.3 pass none: the call is found as their steps are).
   */
  offer(value: Value, rt?: Runtime): void;
}

/** An index of the list `Options`: `0 | 1` for a list of two labels, `number` for a list of unknown length. */
export type OptionIndex<Options extends readonly string[]> = number extends Options["length"]
  ? number
  : { [K in keyof Options]: K extends `${infer N extends number}` ? N : never }[number];

/**
 * The object a generated program's body receives. Every method takes the `Site` it was called
 * from, so errors and traces point at the `.prose` line. Control flow stays in generated code
 * (plain `if`, `for`, `while`, `try`); the runtime owns what needs a model, concurrency or state.
 */
/** An eval program's asserts under `prosec eval` (DIALECT.md, "Evals"). */
export interface ScoredAsserts {
  /**
   * A scored check, reported as an `assert` event; the run goes on whether it held or not. `id` is
   * the assert's message as written, else its structural position; `message` as interpolated.
   */
  check(at: Site, passed: boolean, id: string, message?: string): void;
}

export interface Runtime {
  /** Runs a session (a fresh agent) and returns its text result. */
  session(request: SessionRequest): Promise<string>;
  /**
   * A session with `returns:`: its result is the model's `answer`, checked against the request's
   * schema (generated code names `T`, the schema's TypeScript type).
   */
  session<T extends Value>(request: TypedSessionRequest): Promise<T>;
  /** `resume: agent`: a session of a persistent agent that loads and updates its memory. */
  resume(agent: AgentDefinition, request: SessionRequest): Promise<string>;
  resume<T extends Value>(agent: AgentDefinition, request: TypedSessionRequest): Promise<T>;
  /**
   * `**condition**`: the model decides, seeing the (interpolated) text, which construct asks, the
   * bindings in scope and the trail.
   */
  judge(at: Site, condition: string, scope: { readonly [name: string]: Value }, asks?: JudgmentAsker): Promise<boolean>;
  /**
   * `choice **criteria**:` returns the index of the chosen option label, typed as one of the
   * options' indices: a `switch` with a `case` for each is exhaustive to TypeScript.
   */
  choose<Options extends readonly string[]>(
    at: Site,
    criteria: string,
    options: readonly [...Options],
    scope: { readonly [name: string]: Value },
  ): Promise<OptionIndex<Options>>;
  /** An `input` value: supplied inputs first, then `RunOptions.onInput`; else an error naming it. */
  input(at: Site, definition: InputDefinition): Promise<Value>;
  /**
   * `parallel:` (join `all`): starts every branch, each in a context of its own (its step keys, its
   * abort signal), and returns one promise per branch settled by the failure policy, for
   * `Promise.all`. Under `fail-fast` a failing branch rejects and cancels its siblings.
   */
  branches<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly onFail?: P },
    branches: T,
  ): JoinedBranches<T, P>;
  /** `parallel ("first")`: the first branch to succeed wins; the others are cancelled. */
  first<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly onFail?: P },
    branches: T,
  ): Promise<RacedBranches<T, P>>;
  /** `parallel ("any", count: n)`: waits for `count` successes (default 1), then cancels the rest. */
  any<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly count?: number; readonly onFail?: P },
    branches: T,
  ): Promise<RacedBranches<T, P>>;
  /**
   * `parallel:` as modules generated before `branches` / `first` / `any` call it: the join strategy
   * given as an option.
   */
  parallel(at: Site, options: ParallelOptions, branches: readonly Branch[]): Promise<ParallelResult>;
  /**
   * `parallel for` and `pmap`: runs `body` over the items with the run-wide concurrency limit and
   * returns the results in item order. `rt` is the item's own handle (as a branch's); a body that
   * declares fewer than three parameters runs as a branch without one does. The list is typed by
   * what `body` gives (an item ending in a typed session, `session<T>`, gives a `T[]`).
   */
  map<T extends Value = Value>(
    at: Site,
    items: readonly Value[],
    body: (item: Value, index: number, rt: Runtime) => Promise<T>,
  ): Promise<T[]>;
  /**
   * Calls the program imported as `name` (`use "./x.prose" as name`): `run` is that program's
   * generated entry. The called run shares this run's limit, journal and state folder (`imports/`).
   */
  call<O extends Value>(
    at: Site,
    name: string,
    run: (inputs: never, options?: RunOptions) => Promise<O>,
    inputs: { readonly [name: string]: Value },
  ): Promise<O>;
  /**
   * Calls a `block`, enforcing the recursion depth limit and giving the call an execution id; `body`
   * gets the call's own handle (as a branch does).
   */
  block<T extends Value>(
    at: Site,
    name: string,
    maxDepth: number | undefined,
    body: (rt: Runtime) => Promise<T>,
  ): Promise<T>;
  /** Text treated as a list (`for x in parts`, pipelines): parse first, ask the model if that fails. */
  list(at: Site, value: Value): Promise<readonly Value[]>;
  /**
   * `a.b` / `a[0]` on a value that may be text holding structure; a key that is not a number is read as
   * text. `fields`: every field the program reads from the same binding; a text the model must read is
   * asked for all of them at once.
   */
  field(at: Site, value: Value, key: Value, fields?: readonly string[]): Promise<Value>;
  /**
   * The same read of a value a `returns:` type declares the field of: generated code names `T`, the
   * field's type or `null` (an item past the end, an optional key left out).
   */
  field<T extends Value>(at: Site, value: Value, key: Value, fields?: readonly string[]): Promise<T>;
  /** Truthiness for `filter`, deterministic conditions and `not`: parse first, then ask. */
  truthy(at: Site, value: Value): Promise<boolean>;
  /** Announces a statement (the narration's position). */
  position(at: Site, statement: string): void;
  /** Announces a loop iteration. */
  iteration(at: Site, index: number): void;
  /** An unbound result (a `do`, a program call, a parallel branch ...) joins the trail; returned unchanged. */
  keep<T extends Value>(source: string, value: T): T;
  /** A loop's sequences: `next()` starts each iteration, `end()` returns to the enclosing sequence. */
  loop(): LoopSequence;
  /**
   * A sequential pipeline stage's sequences: `next()` starts each item, which sees the trail where
   * the stage began and never another item's results; `end()` returns to the enclosing sequence.
   */
  items(): LoopSequence;
  /** A block binding read outside the block: one holder per binding, which every call of the block offers its value. */
  lastCall(): LastCall;
  /**
   * The final result of a program that declares no `output`: its last top-level statement's value
   * (prose.md, "Return outputs to caller (or final result if no outputs declared)"). A `use` caller
   * receives it, and `run-end` reports it.
   */
  finalResult(value: Value): void;
  /** Records a binding (for traces and `bindings/` files); returns the value unchanged. */
  bind<T extends Value>(at: Site, name: string, value: T): T;
  /** The error a `throw` raises, carrying the `.prose` location. */
  fail(at: Site, message?: string): Error;
  /** An eval program's asserts under `prosec eval`: scored checks that do not stop the run. */
  readonly asserts: ScoredAsserts;
  /**
   * Called first in every `catch:`: rethrows what a program does not catch (a run waiting for input,
   * the cancellation of a branch that lost a race or whose sibling failed).
   */
  catchable(error: unknown): void;
  /**
   * `enter` is called first in every `finally:` body, `exit` last: the body's steps run although the
   * branch was cancelled (a cancelled branch still runs its `finally`); only a stopped run stops them.
   */
  readonly finallyBody: FinallyBody;
  /**
   * What `catch as err` binds: the caught error's message. A function, not inline narrowing, so the
   * generated code type-checks even where TypeScript sees it as unreachable (after a `throw`).
   */
  caught(error: unknown): Value;
}

/** Brackets a `finally:` body (`Runtime.finallyBody`). */
export interface FinallyBody {
  enter(): void;
  exit(): void;
}
