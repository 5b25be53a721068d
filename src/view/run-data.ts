/**
 * What `prosec view` shows of a run, read from its folder (nothing here writes): the journal's steps
 * (the truth of what finished), joined by key with the trace's (docs/trace.md: times, requests,
 * retries, errors), each source line's state, spent.json, and the graph with the run's state on it.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Usage } from "../../runtime/index.js";
import { readWaiting } from "../../runtime/durable/run-control.js";
import {
  TRACE_FOLDER,
  TRACE_STEPS_FILE,
  TRACE_TEXTS_FILE,
  keyedRecords,
  type KeyedTraceRecord,
  type TraceRecord,
  type TraceRequestRecord,
  type TraceStartRecord,
} from "../../runtime/durable/trace-format.js";
import { graphOfSource, type FlowGraph } from "../graph/index.js";
import { drawSvg, layoutGraph, type GraphLayout } from "../graph/to-svg.js";
import { estimateCost } from "../run/cost.js";
import { readRun } from "../run/run-list.js";

export type LineState = "done" | "running" | "failed" | "waiting";
/** `queued` and `cancelled` are DBOS runs' (src/view/dbos-view.ts). */
export type RunStatus =
  "running" | "complete" | "failed" | "interrupted" | "waiting" | "damaged" | "queued" | "cancelled";

export interface StepView {
  readonly key: string;
  readonly kind: string;
  readonly line: number;
  readonly label: string;
  /** The parallel branch, block call or program call it ran in: the key without its last segment. */
  readonly lane: string;
  readonly state: "done" | "running" | "failed" | "waiting";
  readonly start?: number;
  readonly end?: number;
  readonly retries: number;
  readonly usage: readonly Usage[];
  readonly cost?: number;
  /** Text ids (see `texts`). */
  readonly value?: string;
  readonly reason?: string;
  readonly error?: string;
  readonly requests: ReadonlyArray<Omit<TraceRequestRecord, "e" | "s">>;
}

export interface LineView {
  readonly line: number;
  readonly state?: LineState;
  readonly runs: number;
  readonly cost: number;
}

export interface RunData {
  readonly runId: string;
  readonly program: string;
  readonly status: RunStatus;
  readonly startedAt?: string;
  /** Milliseconds from the start to the last write. */
  readonly durationMs?: number;
  readonly source: string;
  /** Finished steps: the journal's lines. */
  readonly finished: number;
  readonly steps: readonly StepView[];
  readonly lines: readonly LineView[];
  readonly spent?: { readonly dollars: number; readonly calls: number };
  readonly tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  readonly error?: string;
  readonly waitingFor?: readonly string[];
  readonly texts: { readonly [id: string]: string };
  readonly svg?: string;
  /** Changes whenever a file the page shows changes (the page polls it while the run goes on). */
  readonly version: string;
}

export interface RunSummary {
  readonly runId: string;
  /** Set for a run in the DBOS database; a file run's is in .prose/runs. */
  readonly store?: "dbos";
  readonly program: string;
  readonly status: RunStatus;
  readonly startedAt?: string;
  readonly durationMs?: number;
  readonly steps: number;
  readonly tokens: number;
  readonly cost?: number;
}

interface JournalLine {
  readonly key: string;
  readonly kind: string;
  readonly usage?: readonly Usage[];
  readonly reason?: string;
}

/** The summary `prosec view` lists a run with. */
export function summarizeRun(runId: string, dir: string): RunSummary {
  const listed = readRun(runId, dir);
  const journal = readLines<JournalLine>(join(dir, "journal.jsonl"));
  const usage = journal.flatMap((record) => record.usage ?? []);
  return {
    runId,
    program: listed.program ?? runId,
    status: statusOf(dir, listed.status),
    ...(listed.startedAt === undefined ? {} : { startedAt: listed.startedAt }),
    ...durationOf(listed.startedAt, listed.lastWrittenMs),
    steps: journal.length,
    tokens: usage.reduce((sum, entry) => sum + totalTokens(entry), 0),
    ...(listed.cost === undefined ? {} : { cost: listed.cost }),
  };
}

/**
 * `graph: false` leaves the graph out (a served page asks for it apart, `runGraph`: laying out a large
 * program takes seconds, and the page shows everything else first).
 */
export function readRunData(runId: string, dir: string, options: { readonly graph?: boolean } = {}): RunData {
  const listed = readRun(runId, dir);
  const journal = readLines<JournalLine>(join(dir, "journal.jsonl"));
  const trace = keyedRecords(readLines<TraceRecord>(join(dir, TRACE_FOLDER, TRACE_STEPS_FILE)));
  const allTexts = new Map(
    readLines<{ id: string; text: string }>(join(dir, TRACE_FOLDER, TRACE_TEXTS_FILE)).map(({ id, text }) => [
      id,
      text,
    ]),
  );
  const status = statusOf(dir, listed.status);
  const source = readText(join(dir, "program.prose"));
  const sourceLines = source.split("\n");
  const starts = new Map<string, TraceStartRecord>();
  const ends = new Map<string, Extract<KeyedTraceRecord, { e: "end" }>>();
  const requests = new Map<string, Array<Extract<KeyedTraceRecord, { e: "request" }>>>();
  for (const record of trace) {
    if (record.e === "start") starts.set(record.key, record);
    else if (record.e === "end") ends.set(record.key, record);
    else if (record.e === "request") {
      const list = requests.get(record.key) ?? [];
      list.push(record);
      requests.set(record.key, list);
    }
  }
  const recordedSteps = new Map(journal.map((record) => [record.key, record]));
  const finished = new Set(recordedSteps.keys());
  const keys = [...new Set([...journal.map((record) => record.key), ...starts.keys()])];
  const texts: Record<string, string> = {};
  const use = (id: string | undefined): void => {
    if (id !== undefined && allTexts.has(id)) texts[id] = allTexts.get(id)!;
  };
  const steps = keys.map((key): StepView => {
    const recorded = recordedSteps.get(key);
    const start = starts.get(key);
    const end = ends.get(key);
    const position = positionOf(key);
    const usage =
      recorded?.usage ??
      (requests.get(key) ?? []).flatMap((request) =>
        request.usage === undefined ? [] : [{ model: request.model, ...request.usage }],
      );
    const state: StepView["state"] = finished.has(key)
      ? "done"
      : end?.waiting === true
        ? "waiting"
        : end !== undefined && !end.ok
          ? "failed"
          : status === "running"
            ? "running"
            : "failed";
    const stepRequests = (requests.get(key) ?? []).map(({ e: _e, s: _s, key: _key, ...request }) => request);
    for (const request of stepRequests) {
      use(request.tools);
      request.system.forEach(use);
      for (const message of request.messages) for (const block of message.content) use(blockText(block));
      for (const block of request.answer ?? []) use(blockText(block));
    }
    use(end?.value);
    const cost = estimateCost(usage);
    const reason = recorded?.reason ?? end?.reason;
    return {
      key,
      kind: recorded?.kind ?? start?.kind ?? position.kind,
      line: start?.line ?? position.line,
      label: labelOf(
        start?.label,
        recorded?.kind ?? start?.kind ?? position.kind,
        sourceLines[(start?.line ?? position.line) - 1],
      ),
      lane: key.slice(0, key.lastIndexOf("/")) || "/",
      state,
      ...(start === undefined ? {} : { start: start.t }),
      ...(end === undefined ? {} : { end: end.t }),
      retries: end?.retries ?? 0,
      usage,
      ...(cost === undefined ? {} : { cost }),
      ...(end?.value === undefined ? {} : { value: end.value }),
      ...(reason === undefined ? {} : { reason }),
      ...(end?.error === undefined ? {} : { error: end.error }),
      requests: stepRequests,
    };
  });
  steps.sort((a, b) => (a.start ?? Infinity) - (b.start ?? Infinity));
  const error = /^error: (.*)$/m.exec(readText(join(dir, "state.md")))?.[1];
  const waiting = safeWaiting(dir);
  const lines = lineViews(source, steps, status, error);
  const usage = steps.flatMap((step) => step.usage);
  const spent = readJson(join(dir, "spent.json")) as { dollars: number; calls: number } | undefined;
  return {
    runId,
    program: listed.program ?? runId,
    status,
    ...(listed.startedAt === undefined ? {} : { startedAt: listed.startedAt }),
    ...durationOf(listed.startedAt, listed.lastWrittenMs),
    source,
    finished: journal.length,
    steps,
    lines,
    ...(spent === undefined ? {} : { spent }),
    tokens: {
      input: usage.reduce((sum, entry) => sum + entry.inputTokens, 0),
      output: usage.reduce((sum, entry) => sum + entry.outputTokens, 0),
      cacheRead: usage.reduce((sum, entry) => sum + (entry.cacheReadTokens ?? 0), 0),
      cacheWrite: usage.reduce((sum, entry) => sum + (entry.cacheWriteTokens ?? 0), 0),
    },
    ...(error === undefined ? {} : { error }),
    ...(waiting === undefined ? {} : { waitingFor: waiting }),
    texts,
    ...(options.graph === false ? {} : graphWithState(source, lines)),
    version: runVersion(dir),
  };
}

/** The sizes and times of the files the page shows: a change in any is a new version. */
export function runVersion(dir: string): string {
  return ["journal.jsonl", "state.md", "spent.json", join(TRACE_FOLDER, TRACE_STEPS_FILE), ".lock"]
    .map((file) => {
      try {
        const stats = statSync(join(dir, file));
        return `${stats.size}:${Math.floor(stats.mtimeMs)}`;
      } catch {
        return "-";
      }
    })
    .join("/");
}

function lineViews(
  source: string,
  steps: readonly StepView[],
  status: RunStatus,
  error: string | undefined,
): LineView[] {
  const byLine = new Map<number, { state?: LineState; runs: number; cost: number }>();
  const rank: Record<LineState, number> = { done: 0, running: 1, waiting: 2, failed: 3 };
  for (const step of steps) {
    const entry = byLine.get(step.line) ?? { runs: 0, cost: 0 };
    entry.runs++;
    entry.cost += step.cost ?? 0;
    if (entry.state === undefined || rank[step.state] > rank[entry.state]) entry.state = step.state;
    byLine.set(step.line, entry);
  }
  // A run that failed outside a model step (a `throw`, an assertion) names its line in its error.
  const failedLine = status === "failed" && error !== undefined ? /line (\d+)/.exec(error)?.[1] : undefined;
  if (failedLine !== undefined && ![...byLine.values()].some((entry) => entry.state === "failed")) {
    const entry = byLine.get(Number(failedLine)) ?? { runs: 0, cost: 0 };
    byLine.set(Number(failedLine), { ...entry, state: "failed" });
  }
  const count = source.split("\n").length;
  return Array.from({ length: count }, (_, index) => {
    const entry = byLine.get(index + 1);
    return {
      line: index + 1,
      ...(entry?.state === undefined ? {} : { state: entry.state }),
      runs: entry?.runs ?? 0,
      cost: entry?.cost ?? 0,
    };
  });
}

/** The run's graph with its state: the SVG of `prosec graph`, each node marked with its line's state. */
export function runGraph(runId: string, dir: string): string {
  return readRunData(runId, dir).svg ?? "";
}

/** Layouts by program text: a live page redraws the graph at every new step, the layout stays. */
const layouts = new Map<string, { graph: FlowGraph; layout: GraphLayout } | undefined>();
const LAYOUTS_KEPT = 8;

function graphWithState(source: string, lines: readonly LineView[]): { svg?: string } {
  if (!layouts.has(source)) {
    if (layouts.size >= LAYOUTS_KEPT) layouts.delete(layouts.keys().next().value!);
    const graph = graphOfSource(source).graph;
    layouts.set(source, graph === undefined ? undefined : { graph, layout: layoutGraph(graph) });
  }
  const laid = layouts.get(source);
  if (laid === undefined) return {};
  const { graph, layout } = laid;
  const state = new Map(lines.map((line) => [line.line, line.state]));
  return {
    svg: drawSvg(graph, layout, {
      nodeClasses: (node) => {
        const lineState = node.line === 0 ? undefined : state.get(node.line);
        return lineState === undefined ? [] : [`run-${lineState}`];
      },
    }),
  };
}

function statusOf(dir: string, listed: string): RunStatus {
  if (listed !== "running" && safeWaiting(dir) !== undefined) return "waiting";
  return listed as RunStatus;
}

function safeWaiting(dir: string): string[] | undefined {
  try {
    return readWaiting(dir)?.questions.map((question) => question.name);
  } catch {
    return undefined;
  }
}

/** A judgment's or choice's label is generic ("The judgment"): its line says what it asks. */
function labelOf(label: string | undefined, kind: string, line: string | undefined): string {
  const code = line?.trim().replace(/\s+/g, " ");
  if ((kind === "judge" || kind === "choose" || label === undefined) && code !== undefined && code !== "") return code;
  return label ?? kind;
}

function positionOf(key: string): { kind: string; line: number } {
  const match = /\/([a-z]+)@(\d+):\d+#\d+$/.exec(key);
  return { kind: match?.[1] ?? "step", line: Number(match?.[2] ?? 0) };
}

function blockText(block: object): string | undefined {
  if ("text" in block) return block.text as string;
  if ("input" in block) return block.input as string;
  if ("result" in block) return block.result as string;
  return undefined;
}

function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

function durationOf(startedAt: string | undefined, lastWrittenMs: number): { durationMs?: number } {
  const start = startedAt === undefined ? NaN : Date.parse(startedAt);
  return Number.isNaN(start) || lastWrittenMs === 0
    ? {}
    : { durationMs: Math.max(0, Math.round(lastWrittenMs - start)) };
}

function readLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  const records: T[] = [];
  // Complete lines only: one being written has no newline yet.
  for (const line of text.slice(0, text.lastIndexOf("\n") + 1).split("\n")) {
    if (line === "") continue;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      // A damaged line: the rest is still worth showing.
    }
  }
  return records;
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}
