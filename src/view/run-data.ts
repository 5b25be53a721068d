/**
 * What the pages of `prosec view` share: a run summary as the list shows it, its status and the version of its
 * files (nothing here writes). One run's page is read by run-steps.ts, run-view.ts and step-detail.ts.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { answerName, readWaiting, TRACE_FOLDER, TRACE_STEPS_FILE } from "../../runtime/stored-runs.js";
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

/** The inputs a run waits for, if it does. */
export function waitingFor(dir: string): string[] | undefined {
  try {
    const questions = readWaiting(dir)?.questions;
    return questions?.map((question) => answerName(question, questions));
  } catch {
    return undefined;
  }
}

export function durationOf(startedAt: string | undefined, lastWrittenMs: number): { durationMs?: number } {
  const start = startedAt === undefined ? NaN : Date.parse(startedAt);
  return Number.isNaN(start) || lastWrittenMs === 0
    ? {}
    : { durationMs: Math.max(0, Math.round(lastWrittenMs - start)) };
}
