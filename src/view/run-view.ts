/**
 * What the page of one run opens with: the run's summary, each source line's state and totals
 * (added up here, not in the page), and the steps as columns (`step-columns.ts`). What a step sent and
 * got is not in it: the page asks for it when the step is selected (`step-detail.ts`).
 */
import { durationOf, type RunStatus } from "./run-data.js";
import { readRunSteps, type RunStep, type RunSteps } from "./run-steps.js";
import { STEP_STATES, type StepColumns, type StepState } from "./step-columns.js";
import { runGraphSvg } from "./run-graph.js";

export interface LineView {
  readonly line: number;
  readonly state?: StepState;
  readonly runs: number;
  readonly cost: number;
}

export interface RunView {
  readonly runId: string;
  readonly program: string;
  readonly status: RunStatus;
  readonly startedAt?: string;
  /** Milliseconds from the start to the last write. */
  readonly durationMs?: number;
  readonly source: string;
  /** Finished steps: the journal's lines. */
  readonly finished: number;
  readonly steps: StepColumns;
  /** The lines that ran (or failed), in order. */
  readonly lines: readonly LineView[];
  readonly spent?: { readonly dollars: number; readonly calls: number };
  readonly tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  readonly error?: string;
  readonly waitingFor?: readonly string[];
  /** The graph with the run's state (a saved report; a served page asks for it apart). */
  readonly svg?: string;
  /** Changes whenever a file the page shows changes (the page polls it while the run goes on). */
  readonly version: string;
}

/**
 * `graph: false` leaves the graph out (a served page asks for it apart, `runGraph`: laying out a large
 * program takes seconds, and the page shows everything else first).
 */
export function readRunView(runId: string, dir: string, options: { readonly graph?: boolean } = {}): RunView {
  return runViewOf(readRunSteps(runId, dir), options);
}

export function runViewOf(run: RunSteps, options: { readonly graph?: boolean } = {}): RunView {
  const { listed, steps } = run;
  const lines = lineViews(run);
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const step of steps)
    for (const usage of step.usage) {
      tokens.input += usage.inputTokens;
      tokens.output += usage.outputTokens;
      tokens.cacheRead += usage.cacheReadTokens ?? 0;
      tokens.cacheWrite += usage.cacheWriteTokens ?? 0;
    }
  const svg = options.graph === false ? undefined : runGraphSvg(run.source, lines);
  return {
    runId: listed.runId,
    program: listed.program ?? listed.runId,
    status: run.status,
    ...(listed.startedAt === undefined ? {} : { startedAt: listed.startedAt }),
    ...durationOf(listed.startedAt, listed.lastWrittenMs),
    source: run.source,
    finished: run.finished,
    steps: columnsOf(steps),
    lines,
    ...(run.spent === undefined ? {} : { spent: run.spent }),
    tokens,
    ...(run.error === undefined ? {} : { error: run.error }),
    ...(run.waitingFor === undefined ? {} : { waitingFor: run.waitingFor }),
    ...(svg === undefined ? {} : { svg }),
    version: run.version,
  };
}

function columnsOf(steps: readonly RunStep[]): StepColumns {
  const lanes = new Table();
  const kinds = new Table();
  const labels = new Table();
  const t0 = steps.reduce((first, step) => Math.min(first, step.start ?? Infinity), Infinity);
  const since = (t: number | undefined): number | null => (t === undefined ? null : t - t0);
  return {
    count: steps.length,
    leaf: steps.map((step) => step.key.slice(step.key.lastIndexOf("/") + 1)),
    lane: steps.map((step) => lanes.place(step.lane)),
    lanes: lanes.values,
    kind: steps.map((step) => kinds.place(step.kind)),
    kinds: kinds.values,
    label: steps.map((step) => labels.place(step.label)),
    labels: labels.values,
    line: steps.map((step) => step.line),
    state: steps.map((step) => STEP_STATES.indexOf(step.state)),
    t0: Number.isFinite(t0) ? t0 : 0,
    start: steps.map((step) => since(step.start)),
    end: steps.map((step) => since(step.end)),
    retries: steps.map((step) => step.retries),
    // Micro-dollars are finer than the page shows (4 decimals), and keep the index small.
    cost: steps.map((step) => (step.cost === undefined ? null : Math.round(step.cost * 1e6) / 1e6)),
  };
}

/** Each distinct string once, named by its place. */
class Table {
  readonly values: string[] = [];
  private readonly places = new Map<string, number>();

  place(value: string): number {
    let place = this.places.get(value);
    if (place === undefined) {
      place = this.values.length;
      this.values.push(value);
      this.places.set(value, place);
    }
    return place;
  }
}

function lineViews(run: RunSteps): LineView[] {
  const byLine = new Map<number, { state?: StepState; runs: number; cost: number }>();
  const rank: Record<StepState, number> = { done: 0, cancelled: 1, running: 2, waiting: 3, failed: 4 };
  for (const step of run.steps) {
    const entry = byLine.get(step.line) ?? { runs: 0, cost: 0 };
    entry.runs++;
    entry.cost += step.cost ?? 0;
    if (entry.state === undefined || rank[step.state] > rank[entry.state]) entry.state = step.state;
    byLine.set(step.line, entry);
  }
  // A run that failed outside a model step (a `throw`, an assertion) names its line in its error.
  const failedLine = run.status === "failed" && run.error !== undefined ? /line (\d+)/.exec(run.error)?.[1] : undefined;
  if (failedLine !== undefined && ![...byLine.values()].some((entry) => entry.state === "failed")) {
    const entry = byLine.get(Number(failedLine)) ?? { runs: 0, cost: 0 };
    byLine.set(Number(failedLine), { ...entry, state: "failed" });
  }
  return [...byLine]
    .filter(([line]) => line > 0)
    .sort(([a], [b]) => a - b)
    .map(([line, entry]) => ({ line, ...entry }));
}

/** The run's graph with its state (what a served page asks for after the rest). */
export function readRunGraph(runId: string, dir: string): string {
  const run = readRunSteps(runId, dir);
  return runGraphSvg(run.source, lineViews(run)) ?? "";
}
