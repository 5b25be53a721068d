/**
 * `run.json`: what a durable run started with (run id, program hash, inputs) and the scheme of its
 * steps, which is what `resume` checks and reuses.
 *
 * `stepScheme` numbers the scheme of step addresses, kinds and journal records (step-context.ts,
 * file-journal.ts). It is raised when a change to the compiler or the runtime changes what a run
 * records; a prosec replays the schemes it lists in `REPLAYED_SCHEMES`, and `test/fixtures/runs/`
 * holds runs recorded under each earlier one, which must keep replaying. prosec 0.2 wrote no
 * `stepScheme`: its runs are scheme 1.
 *
 * - 1: a journal of finished steps, keyed by call site (`/parallel@10:1#0/b0/session@11:13#0`).
 * - 2: adds the turns of sessions under way (`conversation.ts`) and, on each step record, its
 *   structural key and fingerprint (`step-keys.ts`), which let a changed program resume. A scheme-1
 *   run resumes by its sites (the program must be unchanged) and is scheme 2 from then on.
 * - 3: every journal line ends with its checksum (`"sum"`, file-journal.ts), from the line run.json's
 *   `checksumsFrom` names on: 0 for a run started under scheme 3, the journal's length when a run of
 *   an earlier scheme was first resumed (its older lines carry none and are read as before).
 * - 4: a record names each identity of its step as `StepAddress` does (`address/`): the structure
 *   is `structure` (was `step`), the request hash `request` (was `requestHash`). Records of earlier
 *   schemes are read with their fields renamed (journal-lines.ts), so a run of scheme 1 to 3
 *   resumes, and is scheme 4 from then on.
 *
 * Fields added to run.json after 0.2 (`stepScheme`, and any later one) are optional when read, and
 * fields this prosec does not know are kept when it rewrites the file.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readRunFile } from "./run-file.js";
import { RunStateError } from "../errors.js";
import type { Value } from "../types.js";

/** The step scheme this prosec records. */
export const STEP_SCHEME = 4;

/** The step schemes this prosec resumes. */
export const REPLAYED_SCHEMES: readonly number[] = [1, 2, 3, 4];

/** The scheme of a run.json that names none: every run prosec 0.2 recorded. */
const SCHEME_OF_0_2 = 1;

export const MANIFEST_FILE = "run.json";

export interface RunManifest {
  readonly runId: string;
  readonly program: string;
  readonly source: string;
  readonly sourceHash: string;
  /** The hash of each program the run calls (`use`), by source path (used-texts.ts); absent when it calls none. */
  readonly uses?: { readonly [source: string]: string };
  /** The prosec that started the run (a resumed run keeps it). */
  readonly compilerVersion: string;
  readonly stepScheme: number;
  readonly inputs: { readonly [name: string]: Value };
  readonly startedAt: string;
  /**
   * The root span of the run's first traced process, as a W3C `traceparent`: a resumed run's root
   * span links to it (telemetry/, docs/production.md "Tracing"). Only when that process was traced.
   */
  readonly traceparent?: string;
  /**
   * The journal line (0-based) from which every line carries a checksum (step scheme 3): lines
   * before it were written by a prosec before checksums. Absent in runs no such prosec has resumed.
   */
  readonly checksumsFrom?: number;
}

/** The folder's run.json, undefined when there is none; a damaged one is a RunStateError. */
export function readManifest(dir: string): RunManifest | undefined {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return undefined;
  let text: string;
  try {
    text = readRunFile(path);
  } catch (error) {
    if (error instanceof RunStateError) throw error;
    throw damaged(path, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw damaged(path, "it is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw damaged(path, "it is not a JSON object");
  const fields = parsed as { readonly [field: string]: unknown };
  for (const field of ["runId", "sourceHash", "compilerVersion", "startedAt"]) {
    if (typeof fields[field] !== "string") throw damaged(path, `"${field}" is missing or not a string`);
  }
  if (Number.isNaN(Date.parse(fields["startedAt"] as string))) throw damaged(path, `"startedAt" is not a date`);
  if (typeof fields["inputs"] !== "object" || fields["inputs"] === null || Array.isArray(fields["inputs"]))
    throw damaged(path, `"inputs" is missing or not an object`);
  const scheme = fields["stepScheme"] ?? SCHEME_OF_0_2;
  if (!Number.isInteger(scheme) || (scheme as number) < 1)
    throw damaged(path, `"stepScheme" is not a whole number of at least 1`);
  const uses = fields["uses"];
  if (
    uses !== undefined &&
    (typeof uses !== "object" ||
      uses === null ||
      Array.isArray(uses) ||
      Object.values(uses).some((hash) => typeof hash !== "string"))
  )
    throw damaged(path, `"uses" is not an object of hashes`);
  const checksumsFrom = fields["checksumsFrom"];
  if (checksumsFrom !== undefined && !(Number.isInteger(checksumsFrom) && (checksumsFrom as number) >= 0))
    throw damaged(path, `"checksumsFrom" is not a whole number`);
  return { program: "", source: "", ...fields, stepScheme: scheme } as RunManifest;
}

/** Refuses a run whose steps this prosec cannot find by key; says which prosec can resume it. */
export function checkStepScheme(manifest: RunManifest, runningVersion: string): void {
  if (REPLAYED_SCHEMES.includes(manifest.stepScheme)) return;
  throw new RunStateError(
    `Run ${manifest.runId} was recorded by prosec ${manifest.compilerVersion} with step scheme ${manifest.stepScheme}; this prosec (${runningVersion}) replays step schemes ${REPLAYED_SCHEMES.join(", ")} only, so it cannot find the run's finished steps. Resume it with prosec ${manifest.compilerVersion} (or any release with step scheme ${manifest.stepScheme}), or start a new run.`,
  );
}

/** A run.json missing from a folder `resume` was pointed at. */
export function missingManifest(dir: string): RunStateError {
  return new RunStateError(
    `${join(dir, MANIFEST_FILE)} is missing: without it the run's program and inputs are unknown, so the run in ${dir} cannot be resumed. Start a new run.`,
  );
}

function damaged(path: string, what: string): RunStateError {
  return new RunStateError(
    `${path} is damaged (${what}): it is not a run.json written by prosec, so the run cannot be resumed. Start a new run.`,
  );
}

/** The inputs a run records: those given (an input whose value is undefined was not given). */
export function givenInputs(inputs: { readonly [name: string]: Value }): { readonly [name: string]: Value } {
  return Object.fromEntries(Object.entries(inputs).filter(([, value]) => value !== undefined));
}
