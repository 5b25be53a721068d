/**
 * The subset of OpenProse the generated runnable programs are written in (test/support/runnable-programs.ts),
 * and the model both the reference interpreter and the fake server play.
 *
 * The model: a session answers `R(<its task>)`; a session whose task starts with `FAIL` fails (a
 * non-retryable 500) every time it is asked; one whose task starts with `FLAKY<k>` fails its first `k`
 * asks in a run and then answers; a filter's session gives its verdict through the `answer` tool; a
 * judgment, and a filter's verdict, is true when its text has an even number of characters.
 */

/** A string with `{name}` holes: a literal head, then the names it interpolates. */
export interface Template {
  readonly head: string;
  readonly names: readonly string[];
}

export type Statement =
  | Valued
  | { readonly kind: "let"; readonly name: string; readonly prompt: Template }
  | { readonly kind: "assign"; readonly name: string; readonly prompt: Template }
  | { readonly kind: "say"; readonly prompt: Template }
  | { readonly kind: "fail"; readonly prompt: Template }
  /** A session with `retry:`: a `FLAKY<k>` one bound with `let` (k ≤ retries), or a `FAIL` one that exhausts them. */
  | { readonly kind: "retried"; readonly name?: string; readonly prompt: Template; readonly retries: number }
  | { readonly kind: "throw"; readonly message: string }
  | {
      readonly kind: "repeat";
      readonly count: number;
      readonly index: string;
      readonly body: readonly Statement[];
    }
  | {
      readonly kind: "for";
      readonly parallel: boolean;
      readonly item: string;
      readonly items: readonly string[];
      readonly body: readonly Statement[];
    }
  /** `loop until/while **...** (max: N) as index:`, or `loop (max: N) as index:` with no condition. */
  | {
      readonly kind: "loop";
      readonly judged?: { readonly mode: "until" | "while"; readonly condition: Template };
      readonly max: number;
      readonly index: string;
      readonly body: readonly Statement[];
    }
  | { readonly kind: "parallel"; readonly branches: readonly ParallelBranch[]; readonly ignore?: true }
  /** `let name = []`, then a loop that appends a session's answer to it each iteration. */
  | { readonly kind: "collect"; readonly name: string; readonly loop: Statement & { readonly kind: "for" } }
  | { readonly kind: "append"; readonly name: string; readonly prompt: Template }
  | {
      readonly kind: "pipeline";
      readonly name: string;
      readonly items: readonly string[];
      readonly stages: readonly Stage[];
    }
  | { readonly kind: "jump"; readonly jump: "break" | "continue" }
  | {
      readonly kind: "if";
      readonly condition: Template;
      readonly then: readonly Statement[];
      readonly otherwise?: readonly Statement[];
    }
  | {
      readonly kind: "try";
      readonly body: readonly Statement[];
      /** The name `catch as` binds the error's message to. */
      readonly binding?: string;
      readonly recover: readonly Statement[];
      readonly always?: readonly Statement[];
    }
  | {
      readonly kind: "call";
      readonly name?: string;
      readonly block: string;
      readonly argument: Template;
      /** A recursive block's depth argument. */
      readonly depth?: number;
    };

/**
 * `let name = <construct>`: the value of a `for` (each iteration's value), a `parallel for` (each
 * item's), a `repeat` or `loop` (the last iteration's), or a `try:` (its body's, else its catch's).
 * The construct's bodies are simple: sessions, `let`s, `if`s, `try:`s and calls, whose values the
 * reference computes (runnable-values.ts).
 */
export type Valued = {
  readonly kind: "valued";
  readonly name: string;
  readonly construct: Statement & { readonly kind: "for" | "repeat" | "loop" | "try" };
};

/** A pipeline stage: one session per item (`map`, `pmap`, `filter`: its verdict), or `reduce` over the list. */
export type Stage =
  | { readonly stage: "map" | "pmap" | "filter"; readonly prompt: Template }
  | { readonly stage: "reduce"; readonly accumulator: string; readonly element: string; readonly prompt: Template };

/** A `parallel:` branch: a session, or a `try:` around one with a `catch:` session. */
export interface ParallelBranch {
  readonly name: string;
  readonly prompt: Template;
  readonly recover?: Template;
  /** A failing session the block goes on without (`on-fail: "ignore"`). */
  readonly ignored?: true;
}

/**
 * A block of a session or two over its parameter, whose `output` returns `result`; or a recursive one:
 * `if depth > 0:` it calls itself with `depth - 1` and outputs a session over that call's result, else
 * it outputs a base session.
 */
export type Block =
  | {
      readonly kind: "plain";
      readonly name: string;
      readonly parameter: string;
      readonly body: readonly Statement[];
      readonly result: string;
    }
  | {
      readonly kind: "recursive";
      readonly name: string;
      readonly parameter: string;
      readonly depth: string;
      readonly below: string;
      readonly step: Template;
      readonly base: Template;
    };

/** Where a statement that can raise stands in the source: what its error's message starts with. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** The reference model's answer to a session's task. */
export const sessionAnswer = (task: string): string => `R(${task})`;
/** The reference model's verdict on a judgment's condition or a filter session's task. */
export const verdict = (condition: string): boolean => condition.length % 2 === 0;
export const FAILING = "FAIL";
export const FLAKY = "FLAKY";

/** How many times the model fails a task before it answers (Infinity: always). */
export function failuresOf(task: string): number {
  if (task.startsWith(FAILING)) return Infinity;
  const flaky = /^FLAKY(\d+) /.exec(task);
  return flaky === null ? 0 : Number(flaky[1]);
}

/** What the fake server's 500 says, as a failed session's error carries it (the SDK's `status body`). */
export const SERVER_ERROR = '500 {"type":"error","error":{"type":"api_error","message":"fake 500"}}';
