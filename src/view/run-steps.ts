/**
 * A run's steps as its folder records them (nothing here writes): the journal's (the truth of what
 * finished) joined by key with the trace's (docs/trace.md: times, retries, errors). A step's requests
 * are kept as the lines the trace holds and read only when its details are asked for: a 20,000-step
 * run's index is read without parsing 40,000 requests. Read once per version of the run's files.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { readRunFile } from "../../runtime/stored-runs.js";
import type { Usage } from "../../runtime/index.js";
import {
  TRACE_FOLDER,
  TRACE_STEPS_FILE,
  TRACE_TEXTS_FILE,
  type TraceEndRecord,
  type TraceRecord,
  type TraceRequestRecord,
  type TraceStartRecord,
} from "../../runtime/stored-runs.js";
import { estimateCost, pricesForEstimates } from "../run/cost.js";
import { readRun, type ListedRun } from "../runs/folder-list.js";
import { runVersion, waitingFor, type RunStatus } from "./run-data.js";

export type StepState = "done" | "running" | "failed" | "waiting" | "cancelled";

export interface RunStep {
  readonly key: string;
  readonly kind: string;
  readonly line: number;
  readonly label: string;
  /** The parallel branch, block call or program call it ran in: the key without its last segment. */
  readonly lane: string;
  readonly state: StepState;
  readonly start?: number;
  readonly end?: number;
  readonly retries: number;
  readonly usage: readonly Usage[];
  readonly cost?: number;
  /** A text id (see `readTexts`). */
  readonly value?: string;
  readonly reason?: string;
  readonly error?: string;
  /** The step's request records, as the trace's lines (`requestsOf` reads them). */
  readonly requestLines: readonly string[];
}

export interface RunSteps {
  readonly listed: ListedRun;
  readonly status: RunStatus;
  readonly source: string;
  /** Finished steps: the journal's lines. */
  readonly finished: number;
  /** In the order they started (steps the trace does not time last). */
  readonly steps: readonly RunStep[];
  readonly error?: string;
  readonly waitingFor?: readonly string[];
  readonly spent?: { readonly dollars: number; readonly calls: number };
  readonly version: string;
}

interface JournalLine {
  readonly key: string;
  readonly kind?: string;
  readonly usage?: readonly Usage[];
  readonly reason?: string;
}

/** Runs read lately, by folder: a page's requests for step details and its polls read a run once per version. */
const cache = new Map<string, RunSteps>();
const RUNS_KEPT = 4;

export function readRunSteps(runId: string, dir: string): RunSteps {
  const version = runVersion(dir);
  const cached = cache.get(dir);
  if (cached !== undefined && cached.version === version && cached.listed.runId === runId) return cached;
  const read = readSteps(runId, dir, version);
  cache.delete(dir);
  if (cache.size >= RUNS_KEPT) cache.delete(cache.keys().next().value!);
  cache.set(dir, read);
  return read;
}

function readSteps(runId: string, dir: string, version: string): RunSteps {
  const listed = readRun(runId, dir);
  const status: RunStatus = listed.status;
  // A session's turns have records of their own (no `kind`): they are not steps.
  const journal = parsed<JournalLine>(readLines(join(dir, "journal.jsonl"))).filter(
    (record) => record.kind !== undefined,
  );
  const prices = pricesForEstimates();
  const trace = readTrace(join(dir, TRACE_FOLDER, TRACE_STEPS_FILE));
  const source = readText(join(dir, "program.prose"));
  const sourceLines = source.split("\n");
  const codes = new Map<number, string | undefined>();
  const code = (line: number): string | undefined => {
    if (!codes.has(line)) codes.set(line, sourceLines[line - 1]?.trim().replace(/\s+/g, " "));
    return codes.get(line);
  };
  const recorded = new Map(journal.map((record) => [record.key, record]));
  const keys = [...new Set([...recorded.keys(), ...trace.starts.keys()])];
  const steps = keys.map((key): RunStep => {
    const journaled = recorded.get(key);
    const start = trace.starts.get(key);
    const end = trace.ends.get(key);
    const requestLines = trace.requests.get(key) ?? [];
    const position = start === undefined ? positionOf(key) : undefined;
    const kind = journaled?.kind ?? start?.kind ?? position!.kind;
    const line = start?.line ?? position!.line;
    const usage =
      journaled?.usage ??
      requestsOf(requestLines).flatMap((request) =>
        request.usage === undefined ? [] : [{ model: request.model, ...request.usage }],
      );
    return {
      key,
      kind,
      line,
      label: labelOf(start?.label, kind, code(line)),
      lane: key.slice(0, key.lastIndexOf("/")) || "/",
      state: stateOf(journaled !== undefined, end, status),
      start: start?.t,
      end: end?.t,
      retries: end?.retries ?? 0,
      usage,
      cost: estimateCost(usage, prices),
      value: end?.value,
      reason: journaled?.reason ?? end?.reason,
      error: end?.error,
      requestLines,
    };
  });
  steps.sort((a, b) => (a.start ?? Infinity) - (b.start ?? Infinity));
  const error = /^error: (.*)$/m.exec(readText(join(dir, "state.md")))?.[1];
  const waiting = waitingFor(dir);
  const spent = readJson(join(dir, "spent.json")) as { dollars: number; calls: number } | undefined;
  return {
    listed,
    status,
    source,
    finished: journal.length,
    steps,
    ...(error === undefined ? {} : { error }),
    ...(waiting === undefined ? {} : { waitingFor: waiting }),
    ...(spent === undefined ? {} : { spent }),
    version,
  };
}

/** A step's requests, read from its trace lines (a damaged line is left out). */
export function requestsOf(lines: readonly string[]): TraceRequestRecord[] {
  return parsed<TraceRequestRecord>(lines);
}

/** The run's texts by id (docs/trace.md), read once per size of the file. */
const textsCache = new Map<string, { size: number; texts: ReadonlyMap<string, string> }>();

export function readTexts(dir: string): ReadonlyMap<string, string> {
  const path = join(dir, TRACE_FOLDER, TRACE_TEXTS_FILE);
  const size = existsSync(path) ? statSync(path).size : 0;
  const cached = textsCache.get(dir);
  if (cached !== undefined && cached.size === size) return cached.texts;
  const texts = new Map(parsed<{ id: string; text: string }>(readLines(path)).map(({ id, text }) => [id, text]));
  textsCache.delete(dir);
  if (textsCache.size >= RUNS_KEPT) textsCache.delete(textsCache.keys().next().value!);
  textsCache.set(dir, { size, texts });
  return texts;
}

interface Trace {
  readonly starts: Map<string, TraceStartRecord>;
  readonly ends: Map<string, TraceEndRecord>;
  readonly requests: Map<string, string[]>;
}

/**
 * The trace's records by step key. Step numbers count from each `run` record (each process that ran
 * the run), so a record's step is the one of that number started after the last `run` record.
 * Requests stay lines: their step number is read from their opening (`{"e":"request","s":N,`).
 */
function readTrace(path: string): Trace {
  const trace: Trace = { starts: new Map(), ends: new Map(), requests: new Map() };
  let keys = new Map<number, string>();
  for (const line of readLines(path)) {
    const request = /^\{"e":"request","s":(\d+),/.exec(line);
    if (request !== null) {
      const key = keys.get(Number(request[1]));
      if (key === undefined) continue;
      const list = trace.requests.get(key);
      if (list === undefined) trace.requests.set(key, [line]);
      else list.push(line);
      continue;
    }
    let record: TraceRecord;
    try {
      record = JSON.parse(line) as TraceRecord;
    } catch {
      continue;
    }
    if (record.e === "run") keys = new Map();
    else if (record.e === "start") {
      keys.set(record.s, record.key);
      trace.starts.set(record.key, record);
    } else if (record.e !== "server") {
      const key = keys.get(record.s);
      if (key === undefined) continue;
      if (record.e === "end") trace.ends.set(key, record);
      else {
        const list = trace.requests.get(key);
        if (list === undefined) trace.requests.set(key, [line]);
        else list.push(line);
      }
    }
  }
  return trace;
}

function stateOf(journaled: boolean, end: TraceEndRecord | undefined, status: RunStatus): StepState {
  if (journaled) return "done";
  if (end?.waiting === true) return "waiting";
  if (end?.cancelled === true) return "cancelled";
  if (end !== undefined && !end.ok) return "failed";
  return status === "running" ? "running" : "failed";
}

/** A judgment's or choice's label is generic ("The judgment"): its line (`code`) says what it asks. */
function labelOf(label: string | undefined, kind: string, code: string | undefined): string {
  if ((kind === "judge" || kind === "choose" || label === undefined) && code !== undefined && code !== "") return code;
  return label ?? kind;
}

function positionOf(key: string): { kind: string; line: number } {
  const match = /\/([a-z]+)@(\d+):\d+#\d+$/.exec(key);
  return { kind: match?.[1] ?? "step", line: Number(match?.[2] ?? 0) };
}

/** A file's complete lines (one being written has no newline yet), empty ones left out. */
function readLines(path: string): string[] {
  if (!existsSync(path)) return [];
  const text = readRunFile(path);
  return text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter((line) => line !== "");
}

/** Each line's record; a damaged line is left out (the rest is still worth showing). */
function parsed<T>(lines: readonly string[]): T[] {
  const records: T[] = [];
  for (const line of lines) {
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      // Left out.
    }
  }
  return records;
}

function readText(path: string): string {
  try {
    return readRunFile(path);
  } catch {
    return "";
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readRunFile(path));
  } catch {
    return undefined;
  }
}
