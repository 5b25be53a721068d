import type { Finish } from "./lowered.js";
import type * as ast from "../../ast.js";
import type { SymbolInfo } from "../2-analyze/index.js";
import { Lines } from "./lowered.js";

/**
 * Where lowering stands, passed down explicitly: a visitor that needs something different for
 * what it lowers below makes a new state (`{ ...state, inCatch: true }`); none is ever changed.
 */
export interface LowerState {
  /** The statement list being written: what an expression needs done first goes here. */
  readonly out: Lines;
  /**
   * The symbols the statement list being written declares where they are bound (`const x = ...`);
   * the others of its scope are declared ahead of it.
   */
  readonly declaredHere: ReadonlySet<SymbolInfo>;
  /** Inside a `catch:` body, where a bare `throw` re-raises what was caught. */
  readonly inCatch: boolean;
  /**
   * Judgments see the bindings declared before this offset; unset, before the judgment itself.
   * A loop's condition sees its whole body (the loop's end).
   */
  readonly judgeBefore: number | undefined;
  /** Symbols whose own initializer is being lowered: a judgment in it cannot see them. */
  readonly declaring: ReadonlySet<SymbolInfo>;
  /** In a `parallel for` body: the slot each outer accumulator's append writes its part to. */
  readonly accumulators: ReadonlyMap<ast.BindingStatement, string>;
  /** A conditional loop's bindings, declared before the loop so its condition can name them. */
  readonly declaredBeforeLoop: ReadonlySet<SymbolInfo>;
  /** The construct whose condition is being lowered: what its judgments are told asks them. */
  readonly asker: JudgmentAsker;
  /** What `return`, `break` and `continue` lower to here (see `visitors/jumps.ts`). */
  readonly jumps: Jumps;
  /**
   * Set for an `if` or `choice` after the last statement of a program's final-result list that gives
   * a value: its bodies are transparent (DIALECT.md), so the last value one of them gives is the
   * program's final result when that body ran.
   */
  readonly finalResult?: Finish;
}

/**
 * The statements each jump lowers to where it stands, the last one leaving; absent where analysis
 * reports the jump as an error (a program with errors is never lowered).
 */
export interface Jumps {
  readonly return?: readonly string[];
  readonly break?: readonly string[];
  readonly continue?: readonly string[];
}

/** The construct a judgment answers for (the runtime's `JudgmentAsker`). */
export type JudgmentAsker = "if" | "elif" | "until" | "while" | "assert" | "condition";

/** The state at the top of a program; `exit` is what a top-level `return` lowers to. */
export function programState(exit: readonly string[] = ["return {};"]): LowerState {
  return {
    out: new Lines(),
    declaredHere: new Set(),
    inCatch: false,
    judgeBefore: undefined,
    declaring: new Set(),
    accumulators: new Map(),
    declaredBeforeLoop: new Set(),
    asker: "condition",
    jumps: { return: exit },
  };
}

/** The same state writing to a new statement list. */
export function nested(state: LowerState): LowerState {
  return { ...state, out: new Lines() };
}
