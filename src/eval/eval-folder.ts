/**
 * An eval's folder, `.prose/evals/<eval id>/`: `eval.json`, its manifest (the program, the cases and
 * which run each case and repeat is), written once before the first case starts; and `results.jsonl`,
 * one line per finished case, appended as each finishes. A line cut short by a crash is not a result:
 * that case runs again (its run resumes, so its finished steps are not paid for again).
 *
 * Each case is a normal durable run in `.prose/runs/<run id>/`, tagged by an `eval.json` of its own
 * (src/run/eval-tag.ts) so `prosec runs` can fold an eval's runs under it.
 *
 * An eval folder may come from someone else (an archive, a shared folder): its files are opened
 * `O_NOFOLLOW | O_NONBLOCK` and read or appended to only when their descriptor is a regular file of
 * sane size (`openEvalFile`), so a FIFO, a device or a link there cannot hang or redirect `prosec eval`.
 */
import { closeSync, constants, existsSync, readdirSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { makeDirectory, openWrittenFile, UnexpectedFile, writeFileAtomically } from "../../runtime/stored-runs.js";
import type { Value } from "../../runtime/index.js";
import type { CaseResult } from "./case-result.js";
import { jsonText } from "../json-text.js";
import { UsageError } from "../errors.js";

export { readTag, tagRun, TAG_FILE, type EvalTag } from "../run/eval-tag.js";

/** The manifest's format: an older prosec refuses a newer one. */
export const EVAL_FORMAT = 1;

export interface EvalRunEntry {
  readonly case: string;
  /** 1-based. */
  readonly repeat: number;
  readonly runId: string;
  readonly inputs: { readonly [name: string]: Value };
}

export interface EvalManifest {
  readonly format: number;
  readonly evalId: string;
  /** The eval program as given on the command line, relative to the working directory. */
  readonly program: string;
  readonly sourceHash: string;
  /** Where the cases were read from. */
  readonly cases: string;
  readonly repeat: number;
  readonly startedAt: string;
  readonly runs: readonly EvalRunEntry[];
}

/**
 * A name an eval's or a run's folder can have: never a path (`..`, `/`). An eval.json is read back by
 * `--resume`, and whoever could write it must not make the eval write its runs outside `.prose/`.
 */
const FOLDER_NAME = /^(?!\.\.?$)[\w.-]{1,100}$/;

function isFolderName(id: unknown): id is string {
  return typeof id === "string" && FOLDER_NAME.test(id);
}

export function evalsFolder(cwd: string): string {
  return join(cwd, ".prose", "evals");
}

export function evalFolder(cwd: string, evalId: string): string {
  return join(evalsFolder(cwd), evalId);
}

export function runFolder(cwd: string, runId: string): string {
  return join(cwd, ".prose", "runs", runId);
}

export function writeManifest(dir: string, manifest: EvalManifest): void {
  makeDirectory(dir);
  writeFileAtomically(join(dir, "eval.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The manifest, or why it cannot be used. */
export function readManifest(dir: string): EvalManifest | string {
  let json: EvalManifest;
  try {
    json = JSON.parse(readEvalFile(join(dir, "eval.json"))) as EvalManifest;
  } catch (error) {
    if (error instanceof EvalFileError) return error.message;
    return `${join(dir, "eval.json")} is missing or is not JSON`;
  }
  if (json.format !== EVAL_FORMAT || !Array.isArray(json.runs))
    return `${join(dir, "eval.json")} is of format ${String(json.format)}, which this prosec does not read (it reads ${EVAL_FORMAT})`;
  const ids: unknown[] = [json.evalId, ...json.runs.map((entry: EvalRunEntry | null) => entry?.runId)];
  const strange = ids.find((id) => !isFolderName(id)) ?? (ids.every(isFolderName) ? undefined : "no id");
  if (strange !== undefined)
    return `${join(dir, "eval.json")} names ${jsonText(strange)} as an eval or run id, which is not one (an id is never a path)`;
  return json;
}

/** Appends one finished case: a single write of one line, so a crash leaves it whole or cut short. */
export function appendResult(dir: string, result: CaseResult): void {
  const path = join(dir, "results.jsonl");
  const { O_WRONLY, O_APPEND, O_CREAT } = constants;
  const fd = openEvalFile(path, O_WRONLY | O_APPEND | O_CREAT);
  try {
    writeSync(fd, `${JSON.stringify(result)}\n`);
  } finally {
    closeSync(fd);
  }
}

/** The finished cases, by `case#repeat`; a line cut short (the process died writing it) is left out. */
export function readResults(dir: string): Map<string, CaseResult> {
  const path = join(dir, "results.jsonl");
  const results = new Map<string, CaseResult>();
  if (!existsSync(path)) return results;
  let text: string;
  try {
    text = readEvalFile(path);
  } catch (error) {
    if (error instanceof EvalFileError) throw new UsageError(`${error.message}; start a new eval`);
    throw error;
  }
  for (const line of text.split("\n").slice(0, -1)) {
    try {
      const result = JSON.parse(line) as CaseResult;
      results.set(entryKey(result), result);
    } catch {
      // A damaged line: that case is run again.
    }
  }
  return results;
}

/** The largest eval file read: far beyond any eval's manifest or results, far below what would exhaust memory. */
const EVAL_FILE_LIMIT = 256 * 1024 * 1024;

/** An eval folder's file that is not one prosec wrote: a link, a FIFO, a device, a folder, or too large. */
class EvalFileError extends Error {}

/**
 * A descriptor of the eval folder's file `path`, opened with `flags` and checked as a run's files are
 * (runtime/durable/run-file.ts): a link, a FIFO, a device, a folder or a file over EVAL_FILE_LIMIT
 * bytes is an EvalFileError. A missing file throws as `openSync` does (ENOENT).
 */
function openEvalFile(path: string, flags: number): number {
  try {
    return openWrittenFile(path, flags, EVAL_FILE_LIMIT);
  } catch (error) {
    if (!(error instanceof UnexpectedFile)) throw error;
    const why = error.tooLarge
      ? " an eval's file may hold: prosec did not write it"
      : ", not a regular file: prosec reads only the files it wrote into an eval folder";
    throw new EvalFileError(`${error.message}${why}`);
  }
}

function readEvalFile(path: string): string {
  const fd = openEvalFile(path, constants.O_RDONLY);
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

export function entryKey(entry: { readonly case: string; readonly repeat: number }): string {
  return `${entry.case}#${entry.repeat}`;
}

/** The evals kept, oldest first (ids begin with their start time). */
export function listEvals(cwd: string): string[] {
  const folder = evalsFolder(cwd);
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}
