/**
 * What `prosec test` writes into a golden folder: the whole test from a finished replay (`--save`,
 * `--update`), or the steps to answer by hand (`--write-pending`). Files are written atomically.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { JOURNAL_FILE, journalLine, writeFileAtomically } from "../../runtime/stored-runs.js";
import type { ProgramInfo, Value } from "../../runtime/index.js";
import { portable } from "../project/output-path.js";
import {
  ANSWERS_FILE,
  EXPECTED_FILE,
  MANIFEST_FILE,
  type Expected,
  type GoldenFolder,
  type PendingAnswer,
} from "./golden-folder.js";
import type { ReplayedStep, StepReport } from "./replay.js";

export interface FinishedReplay {
  readonly golden: GoldenFolder;
  readonly info: ProgramInfo;
  readonly programPath: string;
  readonly replayed: readonly ReplayedStep[];
  readonly outputs: { readonly [name: string]: Value };
}

/** The natural order of keys (`#2` before `#10`), so a rewritten journal is the same from run to run. */
const keyOrder = new Intl.Collator("en", { numeric: true });

/**
 * Writes the test as the replay saw it: the journal keyed for the program as it is now (answers from
 * answers.json folded in, steps it no longer reaches dropped), run.json naming that program, and its
 * outputs as expected. Returns the files written. (No copy of the program: a `.prose` file here would
 * be found by `prosec check` and `build` as one of the project's programs.)
 */
export function writeGolden(dir: string, replay: FinishedReplay): string[] {
  const { golden, info } = replay;
  const records = replay.replayed.map((step) => step.record).sort((a, b) => keyOrder.compare(a.key, b.key));
  const manifest = {
    ...golden.manifest,
    program: info.name,
    source: info.source,
    sourceHash: info.sourceHash,
    compilerVersion: info.compilerVersion,
  };
  const expected: Expected = { program: portable(replay.programPath, dir), outputs: replay.outputs };
  const files: [string, string][] = [
    [MANIFEST_FILE, `${JSON.stringify(manifest, null, 2)}\n`],
    [JOURNAL_FILE, records.map(({ key, ...step }) => journalLine(key, step)).join("")],
    [EXPECTED_FILE, `${JSON.stringify(expected, null, 2)}\n`],
  ];
  for (const [file, content] of files) writeFileAtomically(join(dir, file), content);
  rmSync(join(dir, ANSWERS_FILE), { force: true });
  return files.map(([file]) => join(dir, file));
}

/** Adds the missing steps to answers.json (keeping the answers already there); returns its path. */
export function writePending(dir: string, existing: readonly PendingAnswer[], missing: readonly StepReport[]): string {
  const known = new Set(existing.map((answer) => answer.key));
  const added = missing
    .filter((step) => !known.has(step.key))
    .map((step): PendingAnswer => ({
      step: `${step.source}:${step.at.line}:${step.at.column} ${step.kind}${step.binding === undefined ? "" : ` (${step.binding})`}`,
      kind: step.kind,
      key: step.key,
      anchor: step.anchor,
      asked: step.asked,
      ...(step.options === undefined ? {} : { options: step.options }),
      answer: null,
    }));
  const path = join(dir, ANSWERS_FILE);
  const note =
    "Steps the program asks for that the recording lacks. Replace each null answer: text for a session, true or false for a judgment, one of the options for a choice. prosec test then replays with them; --update folds them into the journal.";
  writeFileAtomically(path, `${JSON.stringify({ note, answers: [...existing, ...added] }, null, 2)}\n`);
  return path;
}
