/**
 * What changed in a resumed run's programs since its folder recorded them: the program itself (its
 * copy, `program.prose`) and the programs it calls (`run.json`'s `uses`, used-texts.ts). A changed
 * program resumes by structure and fingerprint, unless `--strict` or the run predates them.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readRunFile } from "./run-file.js";
import type { ProgramInfo } from "../types.js";
import type { FinishedWork } from "./file-journal.js";
import type { RunManifest } from "./manifest.js";
import { changedUsedPrograms } from "./used-texts.js";

/**
 * Before a resumed run changes anything in its folder: the error that refuses it, when the work its
 * journal holds would run again (run/rerun-preflight.ts). `previous` and `earlierTexts` as in `OpenedFolder`.
 */
export type ResumeCheck = (work: readonly FinishedWork[], earlier: ProgramChanges) => Error | undefined;

/** Why a run folder is refused although its state is sound (the program or an input changed); the run turns it into a ProseError. */
export class RunFolderError extends Error {}

export interface ProgramChanges {
  /** Whether the program or a program it calls changed. */
  readonly edited: boolean;
  /** The program's text as the run recorded it, when it changed. */
  readonly previous: string | undefined;
  /** The recorded texts of the programs it calls that changed, by source path (those the folder kept). */
  readonly earlierTexts: ReadonlyMap<string, string>;
}

export const UNCHANGED: ProgramChanges = { edited: false, previous: undefined, earlierTexts: new Map() };

export function programChanges(
  dir: string,
  existing: RunManifest,
  program: ProgramInfo,
  used: ReadonlyMap<string, ProgramInfo>,
  strict: boolean,
): ProgramChanges {
  const changedUsed = changedUsedPrograms(dir, existing.uses, used);
  const mainChanged = existing.sourceHash !== program.sourceHash;
  if (!mainChanged && changedUsed.size === 0) return UNCHANGED;
  const copy = join(dir, "program.prose");
  const changed = mainChanged
    ? `The program changed since run ${existing.runId} started (${program.source} no longer matches the copy in ${copy}).`
    : `A program it calls changed since run ${existing.runId} started (${[...changedUsed.keys()].join(", ")} no longer ${changedUsed.size === 1 ? "matches the copy" : "match the copies"} in ${join(dir, "used")}).`;
  if (strict)
    throw new RunFolderError(
      `${changed} --strict resumes only the very program that ran: start a new run, restore the program as it was, or resume without --strict to reuse the steps the change leaves as they were.`,
    );
  if (existing.stepScheme < 2 || (mainChanged && !existsSync(copy)))
    throw new RunFolderError(
      `${changed} The run was recorded before prosec kept the step keys and fingerprints that let a changed program reuse its steps, so it resumes only with the same program: start a new run, or restore the program as it was.`,
    );
  return {
    edited: true,
    previous: mainChanged ? readRunFile(copy) : undefined,
    earlierTexts: new Map(
      [...changedUsed].flatMap(([source, text]) => (text === undefined ? [] : [[source, text] as const])),
    ),
  };
}
