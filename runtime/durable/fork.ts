/**
 * `prosec run FILE --resume ID --from LINE`: a new run that starts as a copy of another's beginning.
 *
 * The new folder gets the old run's manifest (new run id and start time, `forkedFrom`), its program
 * copy, and the journal records written before the first step recorded at or after LINE (in the
 * order the run recorded them; LINE is a line of the program as that run recorded it). Resuming the
 * new folder replays those steps and runs the rest. The old folder is only read.
 */
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRunFile } from "./run-file.js";
import { makeDirectory } from "../make-directory.js";
import { JOURNAL_FILE, parseJournal, recordLine } from "./file-journal.js";
import { MANIFEST_FILE, missingManifest, readManifest, STEP_SCHEME } from "./manifest.js";
import { copyUsedTexts } from "./used-texts.js";

export interface Fork {
  /** Steps the new run reuses. */
  readonly reused: number;
  /** The first step left to run again, when there is one: its line. */
  readonly firstLine: number | undefined;
}

/** The line of a step record's construct in the program that recorded it: the last `line:column` of its site (`key`). */
export function recordedLine(record: { readonly key: string }): number | undefined {
  const sites = [...record.key.matchAll(/@(\d+):\d+/g)];
  const last = sites.at(-1)?.[1];
  return last === undefined ? undefined : Number(last);
}

export function forkRun(from: string, to: string, runId: string, line: number): Fork {
  const manifest = readManifest(from);
  if (manifest === undefined) throw missingManifest(from);
  const journalPath = join(from, JOURNAL_FILE);
  const { lines } = parseJournal(
    existsSync(journalPath) ? readRunFile(journalPath) : "",
    journalPath,
    manifest.checksumsFrom,
  );
  const cut = lines.findIndex((record) => "kind" in record && (recordedLine(record) ?? 0) >= line);
  const kept = (cut === -1 ? lines : lines.slice(0, cut)).filter((record) => !("turn" in record));
  makeDirectory(to);
  writeFileSync(
    join(to, MANIFEST_FILE),
    `${JSON.stringify({ ...manifest, runId, startedAt: new Date().toISOString(), ...forkScheme(manifest.stepScheme), checksumsFrom: 0, forkedFrom: { runId: manifest.runId, line } }, null, 2)}\n`,
  );
  if (existsSync(join(from, "program.prose"))) copyFileSync(join(from, "program.prose"), join(to, "program.prose"));
  copyUsedTexts(from, to);
  // The steps taken over were paid for by the run they come from.
  const records = kept.map((record) => ("kind" in record ? { ...record, reused: true } : record));
  writeFileSync(join(to, JOURNAL_FILE), records.map((record) => recordLine(record)).join(""));
  const firstCut = cut === -1 ? undefined : lines[cut];
  return {
    reused: records.filter((record) => "kind" in record).length,
    firstLine: firstCut === undefined || !("kind" in firstCut) ? undefined : recordedLine(firstCut),
  };
}

/**
 * The step scheme of a fork: its records are written again with checksums and the names of this
 * prosec's scheme (journal-lines.ts reads older ones renamed), so it is this prosec's scheme; a
 * scheme-1 run's records carry no structure and stay scheme 1 (resumed by site alone).
 */
function forkScheme(scheme: number): { readonly stepScheme: number } {
  return { stepScheme: scheme >= 2 ? STEP_SCHEME : scheme };
}
