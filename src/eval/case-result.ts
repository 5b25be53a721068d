/** What one case of an eval (one run of the eval program) came to. */

/** One assert of a case: whether it held every time the case reached it. */
export interface AssertOutcome {
  /** Its message, else its structural position (DIALECT.md, "Evals"). */
  readonly id: string;
  readonly line: number;
  readonly passed: boolean;
  /** The message as the run interpolated it, when it has one. */
  readonly message?: string;
  /** When it failed on a judgment: the judge's answer and its reason. */
  readonly judge?: { readonly answer: string; readonly reason: string };
}

export interface CaseResult {
  readonly case: string;
  readonly repeat: number;
  readonly runId: string;
  /** `scored`: the run ended and its asserts were judged; `error`: it stopped on something else. */
  readonly status: "scored" | "error";
  readonly asserts: readonly AssertOutcome[];
  /** Why the case is an error: the run's error, a refusal, a wait for input. */
  readonly error?: string;
  /** US dollars the case's run spent (all its processes), when its models have prices. */
  readonly dollars?: number;
  /** Model requests the case's run made. */
  readonly calls: number;
  /** Wall time of the case in this eval's processes, milliseconds. */
  readonly ms: number;
}

/** A scored case passes when every assert it reached held. */
export function casePassed(result: CaseResult): boolean {
  return result.status === "scored" && result.asserts.every((outcome) => outcome.passed);
}
