/**
 * What `prosec view` lists of a run, and what its pages share: the run's status and the version of its
 * files (nothing here writes). One run's page is read by run-steps.ts, run-view.ts and step-detail.ts.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Usage } from "../../runtime/index.js";
import { answerName, readWaiting, TRACE_FOLDER, TRACE_STEPS_FILE } from "../../runtime/stored-runs.js";
import { readRun } from "../runs/folder-list.js";
import type { StoredRunStatus } from "../runs/run-store.js";

export type RunStatus = StoredRunStatus;

export interface RunSummary {
  readonly runId: string;
  /** A badge the list shows by a run that keeps no trace: its store's name (`DBOS`), whose page shows what it holds. */
  readonly mark?: string;
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

/** A run's status, `waiting` when it stopped to ask for an input. */
export function statusOf(dir: string, listed: string): RunStatus {
  if (listed !== "running" && waitingFor(dir) !== undefined) return "waiting";
  return listed as RunStatus;
}

/** The inputs a run waits for, if it does. */
export function waitingFor(dir: string): string[] | undefined {
  try {
    const questions = readWaiting(dir)?.questions;
    return questions?.map((question) => answerName(question, questions));
  } catch {
    return undefined;
  }
}

function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

export function durationOf(startedAt: string | undefined, lastWrittenMs: number): { durationMs?: number } {
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
