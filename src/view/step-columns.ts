/**
 * The steps as the page gets them first: one array per field (a 20,000-step run's index is a few
 * hundred kilobytes of JSON, parsed in milliseconds), repeated strings (lanes, kinds, labels) named by
 * their place in a table. What each step sent and got is asked for apart (`StepDetail`). Shared by the
 * server and the page's script (nothing here needs Node).
 */
export const STEP_STATES = ["done", "running", "failed", "waiting", "cancelled"] as const;
export type StepState = (typeof STEP_STATES)[number];

export interface StepColumns {
  readonly count: number;
  /** A step's key is its lane's and its last segment's: see `stepKey`. */
  readonly leaf: readonly string[];
  readonly lanes: readonly string[];
  readonly lane: readonly number[];
  readonly kinds: readonly string[];
  readonly kind: readonly number[];
  readonly labels: readonly string[];
  readonly label: readonly number[];
  readonly line: readonly number[];
  /** Places in STEP_STATES. */
  readonly state: readonly number[];
  /** Epoch milliseconds the times count from. */
  readonly t0: number;
  /** Milliseconds from t0, or null when the trace does not time the step. */
  readonly start: ReadonlyArray<number | null>;
  readonly end: ReadonlyArray<number | null>;
  readonly retries: readonly number[];
  /** Dollars, or null when its model has no price. */
  readonly cost: ReadonlyArray<number | null>;
}

/** The lane of a step at the run's top level. */
export const TOP_LANE = "/";

export function stepKey(steps: StepColumns, index: number): string {
  const lane = steps.lanes[steps.lane[index]!]!;
  return `${lane === TOP_LANE ? "" : lane}/${steps.leaf[index]!}`;
}
