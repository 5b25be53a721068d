/**
 * What is said to a run from outside it, through its folder:
 *
 *   <runDir>/waiting.json   the inputs a run waits for ({ questions, answers }): written when it stops
 *                           waiting; `prosec answer` adds to `answers`; a resume records every answer
 *                           as that input's journal step and removes the file.
 *   <runDir>/cancelled      `prosec cancel`: the run is over and is never resumed.
 *   <runDir>/.lock          the process running it (run-lock.ts), which `cancel` signals.
 */
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRunFile } from "./run-file.js";
import { RunStateError } from "../errors.js";
import type { Question, Value } from "../types.js";

export const WAITING_FILE = "waiting.json";
export const CANCELLED_FILE = "cancelled";

export interface WaitingState {
  readonly questions: readonly Question[];
  /** Answers given with `prosec answer` since, by input name: the next resume uses them. */
  readonly answers: { readonly [name: string]: Value };
}

export function readWaiting(dir: string): WaitingState | undefined {
  const path = join(dir, WAITING_FILE);
  if (!existsSync(path)) return undefined;
  let text: string;
  try {
    text = readRunFile(path);
  } catch (error) {
    if (error instanceof RunStateError) throw error;
    throw new RunStateError(`${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  try {
    const state = JSON.parse(text) as WaitingState;
    if (!Array.isArray(state.questions) || typeof state.answers !== "object" || state.answers === null)
      throw new Error("shape");
    return state;
  } catch {
    throw new RunStateError(`${path} is damaged: it is not a list of questions written by prosec.`);
  }
}

export function writeWaiting(dir: string, state: WaitingState): void {
  // Atomic: `prosec answer` may read it at any moment.
  const path = join(dir, WAITING_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

export function clearWaiting(dir: string): void {
  rmSync(join(dir, WAITING_FILE), { force: true });
}

export function markCancelled(dir: string): void {
  writeFileSync(join(dir, CANCELLED_FILE), `${new Date().toISOString()}\n`);
}

export function isCancelled(dir: string): boolean {
  return existsSync(join(dir, CANCELLED_FILE));
}
