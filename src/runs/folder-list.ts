/**
 * The runs kept in `.prose/runs/`, read from their files: `run.json` (program, start), `.lock` (the
 * pid of the process running it), `state.md` (the status a run wrote last) and `journal.jsonl` (the
 * usage of every finished step, for the cost estimate), `eval.json` (the eval a case's run belongs
 * to). Nothing here writes.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  JOURNAL_FILE,
  parseJournal,
  readManifest,
  lockHolder,
  isCancelled,
  oddEntryIn,
  readRunFile,
  readWaiting,
} from "../../runtime/stored-runs.js";
import type { Usage } from "../../runtime/index.js";
import { RunStateError } from "../../runtime/stored-runs.js";
import { estimateCost } from "../run/cost.js";
import { readTag } from "../run/eval-tag.js";

/**
 * `running`: a live process holds its lock. `waiting`: stopped to ask for an input or an approval.
 * `cancelled`: `prosec cancel` ended it; it is never resumed. `interrupted`: stopped before the end (Ctrl-C, or a
 * process that died, which leaves `running` in state.md and a stale lock): it can be resumed.
 * `damaged`: the folder has no readable run.json, or its journal is damaged (a line prosec did not write
 * as it is): it cannot be resumed as it is, and what it cost is not known.
 */
export type ListedStatus = "running" | "complete" | "failed" | "interrupted" | "waiting" | "cancelled" | "damaged";

export interface ListedRun {
  readonly runId: string;
  readonly dir: string;
  readonly status: ListedStatus;
  /** The program's name (file name without `.prose`), when run.json could be read. */
  readonly program?: string;
  readonly source?: string;
  readonly startedAt?: string;
  /** When a file of the run was last written (ms since the epoch). */
  readonly lastWrittenMs: number;
  /** Finished steps in the journal. */
  readonly steps: number;
  /** Tokens its finished steps (and sessions under way) used. */
  readonly tokens: number;
  /** US dollars from list prices; undefined when no model used has a known price. */
  readonly cost: number | undefined;
  /** The eval the run is a case of (`prosec eval`), if any. */
  readonly evalId?: string;
}

export function runsFolder(cwd: string): string {
  return join(cwd, ".prose", "runs");
}

/** Every run in the folder, oldest first (run ids begin with their start time). */
export function listRuns(cwd: string): ListedRun[] {
  const folder = runsFolder(cwd);
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((runId) => readRun(runId, join(folder, runId)));
}

export function readRun(runId: string, dir: string): ListedRun {
  // A FIFO, a device or a link in the folder is not read at all (a read could block or never end).
  if (oddEntryIn(dir) !== undefined)
    return { runId, dir, status: "damaged", lastWrittenMs: lastWritten(dir), steps: 0, tokens: 0, cost: undefined };
  const manifest = readJson(join(dir, "run.json")) as
    { program?: string; source?: string; startedAt?: string } | undefined;
  const journal = readJournal(dir);
  const tag = readTag(dir);
  return {
    runId,
    dir,
    status: manifest === undefined || journal === undefined ? "damaged" : statusOf(dir),
    ...(manifest?.program === undefined ? {} : { program: manifest.program }),
    ...(manifest?.source === undefined ? {} : { source: manifest.source }),
    ...(manifest?.startedAt === undefined ? {} : { startedAt: manifest.startedAt }),
    lastWrittenMs: lastWritten(dir),
    steps: journal?.steps ?? 0,
    tokens: (journal?.usage ?? []).reduce(
      (sum, usage) =>
        sum + usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0),
      0,
    ),
    cost: journal === undefined ? undefined : estimateCost(journal.usage),
    ...(tag === undefined ? {} : { evalId: tag.evalId }),
  };
}

/** Whether a live process holds the run's lock (so a resume would be refused). */
export function isRunning(dir: string): boolean {
  return lockHolder(dir) !== undefined;
}

function statusOf(dir: string): ListedStatus {
  if (isRunning(dir)) return "running";
  let state: string;
  try {
    state = readRunFile(join(dir, "state.md"));
  } catch {
    return "interrupted";
  }
  const status = /^status: (\w+)$/m.exec(state)?.[1];
  if (status === "complete" || status === "failed") return status;
  if (isCancelled(dir)) return "cancelled";
  return isWaiting(dir) ? "waiting" : "interrupted";
}

/** Whether the run stopped to ask for inputs or approvals (`waiting.json`, runtime/durable/run-control.ts). */
function isWaiting(dir: string): boolean {
  try {
    return (readWaiting(dir)?.questions.length ?? 0) > 0;
  } catch {
    return false;
  }
}

/** The journal's finished steps and their usage; undefined when it is damaged (the run cannot resume). */
function readJournal(dir: string): { steps: number; usage: Usage[] } | undefined {
  const path = join(dir, JOURNAL_FILE);
  let text: string;
  try {
    text = readRunFile(path);
  } catch (error) {
    if (error instanceof RunStateError) return undefined;
    return { steps: 0, usage: [] };
  }
  let lines: ReturnType<typeof parseJournal>["lines"];
  try {
    lines = parseJournal(text, path, checksumsFrom(dir)).lines;
  } catch (error) {
    if (error instanceof RunStateError) return undefined;
    throw error;
  }
  const usage: Usage[] = [];
  const pendingTurns = new Map<string, Usage[]>();
  let steps = 0;
  for (const record of lines) {
    if ("program" in record) continue;
    // A session's turns count when they are paid for: its step record then carries their usage too.
    if ("turn" in record) {
      if (record.turn.type === "response")
        pendingTurns.set(record.key, [...(pendingTurns.get(record.key) ?? []), record.turn.usage]);
      continue;
    }
    pendingTurns.delete(record.key);
    steps++;
    // A step taken over from an earlier program text or a forked run was paid for there.
    if (record.reused !== true) usage.push(...record.usage);
  }
  return { steps, usage: [...usage, ...[...pendingTurns.values()].flat()] };
}

function checksumsFrom(dir: string): number | undefined {
  try {
    return readManifest(dir)?.checksumsFrom;
  } catch {
    return undefined;
  }
}

function lastWritten(dir: string): number {
  let latest = 0;
  for (const file of ["run.json", "journal.jsonl", "state.md", ""]) {
    try {
      latest = Math.max(latest, statSync(join(dir, file)).mtimeMs);
    } catch {
      // Not there: the others tell.
    }
  }
  return latest;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readRunFile(path));
  } catch {
    return undefined;
  }
}
