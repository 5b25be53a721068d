/**
 * `prosec runs show ID`: a run's steps as its journal records them. The records of the program
 * the run now runs (after the journal's last program line, see file-journal.ts), in the order they
 * were written, then the sessions under way (turns journaled, no result yet). Nothing here writes.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { JOURNAL_FILE, parseJournal } from "../../runtime/durable/file-journal.js";
import { recordedLine } from "../../runtime/durable/fork.js";
import { readManifest } from "../../runtime/durable/manifest.js";
import type { FailureCause, Usage } from "../../runtime/index.js";
import { estimateCost } from "./cost.js";

export interface ShownStep {
  /** The structural key (step scheme 2), else the call-site key. */
  readonly key: string;
  readonly line: number | null;
  readonly kind: string;
  /**
   * `finished`, `reused` (taken over from an earlier program text or a forked run), `caught` (it failed
   * and the program's `catch:` took the error), or `running` (turns journaled, no result).
   */
  readonly status: "finished" | "reused" | "caught" | "running";
  /** How a caught step failed: `api-error`, `refusal`, `invalid-answer`, `timeout` or `error`. */
  readonly failure?: FailureCause;
  readonly fingerprint: string | null;
  readonly tokens: number;
  /** US dollars at list prices; null when the model has no known price. */
  readonly cost: number | null;
  /** Model turns journaled (for a session under way). */
  readonly turns?: number;
}

export function runSteps(dir: string): ShownStep[] {
  const path = join(dir, JOURNAL_FILE);
  const { lines } = parseJournal(
    existsSync(path) ? readFileSync(path, "utf8") : "",
    path,
    readManifest(dir)?.checksumsFrom,
  );
  const start = lines.findLastIndex((record) => "program" in record) + 1;
  const steps: ShownStep[] = [];
  const running = new Map<string, Usage[]>();
  for (const record of lines.slice(start)) {
    if ("program" in record) continue;
    if ("turn" in record) {
      if (record.turn.type === "response")
        running.set(record.key, [...(running.get(record.key) ?? []), record.turn.usage]);
      if (record.turn.type === "restart") running.set(record.key, []);
      continue;
    }
    // A caught failure's tokens are those of the turns it took before it failed.
    const turns = running.get(record.key) ?? [];
    running.delete(record.key);
    steps.push({
      key: record.step ?? record.key,
      line: recordedLine(record) ?? null,
      kind: record.kind,
      status: record.failed !== undefined ? "caught" : record.reused === true ? "reused" : "finished",
      ...(record.failed === undefined ? {} : { failure: record.failed.cause }),
      fingerprint: record.fingerprint ?? null,
      ...spent(record.failed === undefined ? record.usage : turns),
    });
  }
  for (const [key, usage] of running)
    steps.push({
      key,
      line: recordedLine({ key }) ?? null,
      kind: "session",
      status: "running",
      fingerprint: null,
      ...spent(usage),
      turns: usage.length,
    });
  return steps;
}

function spent(usage: readonly Usage[]): { tokens: number; cost: number | null } {
  const tokens = usage.reduce(
    (sum, entry) =>
      sum + entry.inputTokens + entry.outputTokens + (entry.cacheReadTokens ?? 0) + (entry.cacheWriteTokens ?? 0),
    0,
  );
  return { tokens, cost: estimateCost(usage) ?? null };
}
