/**
 * A folder run's steps (RunStore.steps, `prosec runs show ID`) as its journal records them: the
 * records of the program the run now runs (after the journal's last program line, see
 * file-journal.ts), in the order they were written, then the sessions under way (turns journaled,
 * no result yet), and the steps whose branch was cancelled (their trace's end says so). Nothing
 * here writes.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readRunFile } from "../../runtime/stored-runs.js";
import {
  JOURNAL_FILE,
  parseJournal,
  recordedLine,
  readManifest,
  TRACE_FOLDER,
  TRACE_STEPS_FILE,
} from "../../runtime/stored-runs.js";
import type { Usage } from "../../runtime/index.js";
import { estimateCost } from "../run/cost.js";
import type { StoredStep } from "./run-store.js";

export function runSteps(dir: string): StoredStep[] {
  const path = join(dir, JOURNAL_FILE);
  const { lines } = parseJournal(existsSync(path) ? readRunFile(path) : "", path, readManifest(dir)?.checksumsFrom);
  const start = lines.findLastIndex((record) => "program" in record) + 1;
  const steps: StoredStep[] = [];
  const running = new Map<string, Usage[]>();
  for (const record of lines.slice(start)) {
    if ("program" in record) continue;
    if ("turn" in record) {
      if (record.turn.type === "response")
        running.set(record.key, [...(running.get(record.key) ?? []), record.turn.usage]);
      if (record.turn.type === "restart") running.set(record.key, []);
      continue;
    }
    // A caught failure's tokens are the calls its record keeps; a record written before failed steps
    // kept them (`usage: []`) has those of the turns it journaled before it failed.
    const turns = running.get(record.key) ?? [];
    running.delete(record.key);
    steps.push({
      key: record.structure ?? record.key,
      line: recordedLine(record) ?? null,
      kind: record.kind,
      status: record.failed !== undefined ? "caught" : record.reused === true ? "reused" : "finished",
      ...(record.failed === undefined ? {} : { failure: record.failed.cause }),
      fingerprint: record.fingerprint ?? null,
      ...spent(record.failed === undefined || record.usage.length > 0 ? record.usage : turns),
    });
  }
  const cancelled = cancelledSteps(dir);
  for (const [key, usage] of running)
    steps.push({
      key,
      line: recordedLine({ key }) ?? null,
      kind: "session",
      status: cancelled.delete(key) ? "cancelled" : "running",
      fingerprint: null,
      ...spent(usage),
      turns: usage.length,
    });
  const recorded = new Set(steps.map((step) => step.key));
  for (const [key, kind] of cancelled)
    if (!recorded.has(key))
      steps.push({
        key,
        line: recordedLine({ key }) ?? null,
        kind,
        status: "cancelled",
        fingerprint: null,
        tokens: 0,
        cost: 0,
      });
  return steps;
}

/** The steps the run's trace ended as cancelled and that did not finish later (a resumed run), by key. */
function cancelledSteps(dir: string): Map<string, string> {
  const path = join(dir, TRACE_FOLDER, TRACE_STEPS_FILE);
  const cancelled = new Map<string, string>();
  if (!existsSync(path)) return cancelled;
  let started = new Map<number, { key: string; kind: string }>();
  for (const line of readRunFile(path).split("\n")) {
    if (!line.startsWith('{"e":"run"') && !line.startsWith('{"e":"start"') && !line.startsWith('{"e":"end"')) continue;
    let record: { e: string; s?: number; key?: string; kind?: string; ok?: boolean; cancelled?: boolean };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      continue;
    }
    if (record.e === "run") started = new Map();
    else if (record.e === "start" && record.s !== undefined && record.key !== undefined)
      started.set(record.s, { key: record.key, kind: record.kind ?? "step" });
    else if (record.e === "end" && record.s !== undefined) {
      const step = started.get(record.s);
      if (step === undefined) continue;
      if (record.cancelled === true) cancelled.set(step.key, step.kind);
      else if (record.ok === true) cancelled.delete(step.key);
    }
  }
  return cancelled;
}

function spent(usage: readonly Usage[]): { tokens: number; cost: number | null } {
  const tokens = usage.reduce(
    (sum, entry) =>
      sum + entry.inputTokens + entry.outputTokens + (entry.cacheReadTokens ?? 0) + (entry.cacheWriteTokens ?? 0),
    0,
  );
  return { tokens, cost: estimateCost(usage) ?? null };
}
