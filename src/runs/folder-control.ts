/**
 * Answers, approvals and cancels of runs in `.prose/runs/` (FolderRuns; the DBOS side is
 * dbos-control.ts). A waiting file run has no process: an answer is recorded in its folder
 * (`waiting.json`), and the next `prosec run --resume` replays it as that input's step.
 */
import {} from "node:fs";
import { join } from "node:path";
import { readRunFile } from "../../runtime/stored-runs.js";
import {
  isCancelled,
  markCancelled,
  readWaiting,
  writeWaiting,
  liveHolder,
  lockRun,
  unlockRun,
  APPROVAL_PREFIX,
  answerName,
  matchAnswers,
  waitingList,
  whereRecorded,
} from "../../runtime/stored-runs.js";
import { RunStateError } from "../../runtime/stored-runs.js";
import { UsageError } from "../errors.js";
import { readRun } from "./folder-list.js";

/** Records answers for what the run waits for; returns the lines to print. */
export function answerFileRun(dir: string, runId: string, answers: { readonly [name: string]: string }): string[] {
  // Under the run's lock, as a resume reads and clears waiting.json: an answer is never written between
  // a resume's read and its clear (and lost), and a run some process is running takes no answer.
  try {
    lockRun(dir, runId);
  } catch (error) {
    if (!(error instanceof RunStateError)) throw error;
    throw new RunStateError(
      `${error.reason} \`prosec answer\` records an answer only while no process runs the run: answer once it has stopped (it says again what it waits for).`,
    );
  }
  try {
    return recordAnswers(dir, runId, answers);
  } finally {
    unlockRun(dir);
  }
}

function recordAnswers(dir: string, runId: string, answers: { readonly [name: string]: string }): string[] {
  if (isCancelled(dir)) throw new UsageError(`run ${runId} was cancelled; it takes no answers`);
  const waiting = readWaiting(dir);
  if (waiting === undefined) throw new UsageError(`run ${runId} is not waiting for input`);
  const matched = matchAnswers(waiting.questions, answers, whereRecorded);
  if ("problem" in matched) throw new UsageError(matched.problem);
  if (matched.unmatched.length > 0)
    throw new UsageError(
      `run ${runId} is not waiting for "${matched.unmatched[0]}"; it waits for ${waitingList(waiting.questions)}`,
    );
  for (const [question] of matched.answers) {
    if (question.deadline !== undefined && Date.parse(question.deadline) <= Date.now()) {
      throw new UsageError(
        `the wait for "${answerName(question, waiting.questions)}" ended at ${question.deadline} (its timeout); resume run ${runId} to go on without it`,
      );
    }
  }
  // Recorded by the question's key: a name two waiting inputs share answers only the one it was matched to.
  const recorded = Object.fromEntries(matched.answers.map(([question, value]) => [question.key, value]));
  writeWaiting(dir, { questions: waiting.questions, answers: { ...waiting.answers, ...recorded } });
  const source = programSource(dir);
  const names = Object.keys(answers)
    .map((name) => `"${name}"`)
    .join(", ");
  return [`answered ${names} for run ${runId}; continue it with: prosec run ${source} --resume ${runId}`];
}

/** Marks the run cancelled (it is never resumed) and stops the process running it, if one is. */
export function cancelFileRun(dir: string, runId: string): string[] {
  if (isCancelled(dir)) return [`run ${runId} was already cancelled`];
  // A finished run is left as it is: cancelling it would only make it refuse a resume that replays it.
  if (liveHolder(dir) === undefined && readRun(runId, dir).status === "complete")
    throw new UsageError(`run ${runId} has finished; there is nothing to cancel`);
  markCancelled(dir);
  const pid = liveHolder(dir);
  // The run's own SIGTERM handling stops it as Ctrl-C does: steps in flight are cancelled, state written.
  if (pid !== undefined) process.kill(pid, "SIGTERM");
  return [`run ${runId} cancelled${pid === undefined ? "" : ` (stopping process ${pid})`}`];
}

function programSource(dir: string): string {
  try {
    const source = (JSON.parse(readRunFile(join(dir, "run.json"))) as { source?: unknown }).source;
    return typeof source === "string" ? source : "<file>";
  } catch {
    return "<file>";
  }
}

/**
 * `prosec approve` / `prosec deny`: answers the tool calls the run waits for a person to approve
 * (runtime/tools/approvals.ts), each named by its call id (or its question's name); without names,
 * the one call pending, or every one with `all`.
 */
export function decideFileRun(
  dir: string,
  runId: string,
  calls: readonly string[],
  all: boolean,
  answer: string,
): string[] {
  const chosen = chosenApprovals(runId, readWaiting(dir)?.questions ?? [], calls, all);
  return answerFileRun(dir, runId, Object.fromEntries(chosen.map((question) => [question.name, answer])));
}

/**
 * The approvals among what a run waits for that `prosec approve` / `deny` decide: the calls named
 * (by call id or question name), every one with `all`, else the one pending. File runs and DBOS alike.
 */
export function chosenApprovals<Q extends { readonly name: string; readonly prompt: string }>(
  runId: string,
  questions: readonly Q[],
  calls: readonly string[],
  all: boolean,
): Q[] {
  const pending = questions.filter((question) => question.name.startsWith(APPROVAL_PREFIX));
  if (pending.length === 0) throw new UsageError(`run ${runId} is not waiting for an approval`);
  const shown = pending.map((question) => `${question.name.slice(APPROVAL_PREFIX.length)} (${question.prompt})`);
  if (calls.length > 0)
    return calls.map((call) => {
      const found = pending.find((question) => question.name === call || question.name === APPROVAL_PREFIX + call);
      if (found === undefined)
        throw new UsageError(
          `run ${runId} is not waiting for an approval of ${call}; it waits for: ${shown.join("; ")}`,
        );
      return found;
    });
  if (!all && pending.length > 1)
    throw new UsageError(
      `run ${runId} waits for ${pending.length} approvals: name the calls, or give --all: ${shown.join("; ")}`,
    );
  return pending;
}
