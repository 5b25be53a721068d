/**
 * The tag of a run that is a case of an eval (`prosec eval`): `eval.json` in its folder, with the eval's
 * id, the case and the repeat. Written before the run starts; `prosec runs` reads it to fold an eval's
 * runs into one line.
 */
import { join } from "node:path";
import { makeDirectory, readRunFile, writeFileAtomically } from "../../runtime/stored-runs.js";

export interface EvalTag {
  readonly evalId: string;
  readonly case: string;
  readonly repeat: number;
}

export const TAG_FILE = "eval.json";

/** Tags a case's run folder before its run starts (the folder is made here). */
export function tagRun(runDir: string, tag: EvalTag): void {
  makeDirectory(runDir);
  // Replaced whole, never written through: an eval.json that is a link is replaced, not followed.
  writeFileAtomically(join(runDir, TAG_FILE), `${JSON.stringify(tag)}\n`);
}

/** The eval a run belongs to, if any. */
export function readTag(runDir: string): EvalTag | undefined {
  try {
    const tag = JSON.parse(readRunFile(join(runDir, TAG_FILE))) as Partial<EvalTag>;
    return typeof tag.evalId === "string" && typeof tag.case === "string" && typeof tag.repeat === "number"
      ? (tag as EvalTag)
      : undefined;
  } catch {
    return undefined;
  }
}
