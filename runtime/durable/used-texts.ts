/**
 * The programs a run calls (`use`), as its folder keeps them: `run.json`'s `uses` maps each one's
 * source path to its hash, and `used/<hash>.prose` keeps each text the run called. A resumed run
 * compares them with the programs it calls now, so an edit of a used program is seen as an edit of
 * the main file is (docs/resume.md): its steps are lined up by structure and fingerprint
 * against the text the run recorded.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRunFile } from "./run-file.js";
import type { ProgramInfo } from "../types.js";
import { makeDirectory } from "../make-directory.js";

const USED_DIR = "used";

/** Every program `program` calls, directly or through others, by source path (the program itself left out). */
export function usedPrograms(program: ProgramInfo): ReadonlyMap<string, ProgramInfo> {
  const found = new Map<string, ProgramInfo>();
  const pending = Object.values(program.uses ?? {});
  while (pending.length > 0) {
    const used = pending.shift()!;
    if (used.source === program.source || found.has(used.source)) continue;
    found.set(used.source, used);
    pending.push(...Object.values(used.uses ?? {}));
  }
  return found;
}

/** `run.json`'s `uses`: each used program's hash by source path, in a stable order. */
export function usedHashes(used: ReadonlyMap<string, ProgramInfo>): { readonly [source: string]: string } {
  return Object.fromEntries(
    [...used].sort(([a], [b]) => (a < b ? -1 : 1)).map(([source, info]) => [source, info.sourceHash]),
  );
}

/** One hash for the program and every program it calls: what a journal's program record names. */
export function editHash(program: ProgramInfo, used: ReadonlyMap<string, ProgramInfo>): string {
  if (used.size === 0) return program.sourceHash;
  return createHash("sha256")
    .update(JSON.stringify([program.sourceHash, usedHashes(used)]))
    .digest("hex");
}

/**
 * The used programs whose text changed since the run recorded `recorded` (`run.json`'s `uses`), each
 * with the text the run called (undefined when the folder no longer has it). A program the run had not
 * called yet is not a change: none of its steps was recorded.
 */
export function changedUsedPrograms(
  dir: string,
  recorded: { readonly [source: string]: string } | undefined,
  used: ReadonlyMap<string, ProgramInfo>,
): ReadonlyMap<string, string | undefined> {
  const changed = new Map<string, string | undefined>();
  for (const [source, info] of used) {
    const hash = recorded?.[source];
    if (hash === undefined || hash === info.sourceHash) continue;
    const copy = join(dir, USED_DIR, `${hash}.prose`);
    changed.set(source, existsSync(copy) ? readRunFile(copy) : undefined);
  }
  return changed;
}

/** Keeps the text of each used program (once per text), before the run's first step. */
export function keepUsedTexts(dir: string, used: ReadonlyMap<string, ProgramInfo>): void {
  for (const info of used.values()) {
    if (info.text === undefined) continue;
    const copy = join(dir, USED_DIR, `${info.sourceHash}.prose`);
    if (existsSync(copy)) continue;
    makeDirectory(join(dir, USED_DIR));
    writeFileSync(copy, info.text);
  }
}

/** A fork's folder gets the texts of the programs its run called, as it gets the program's copy. */
export function copyUsedTexts(from: string, to: string): void {
  if (!existsSync(join(from, USED_DIR))) return;
  makeDirectory(join(to, USED_DIR));
  for (const name of readdirSync(join(from, USED_DIR)))
    copyFileSync(join(from, USED_DIR, name), join(to, USED_DIR, name));
}
