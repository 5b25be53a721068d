/**
 * Waiting runs on DBOS, seen from outside: what they wait for (`prosec status`), answering them
 * (`prosec answer`, and `prosec approve` / `deny` for a tool call: a DBOS message to the waiting
 * workflow) and `prosec cancel` (cancelWorkflow).
 */
import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import { APPROVAL_PREFIX, answerName, matchAnswers, waitingList, whereAsked } from "../../runtime/stored-runs.js";
import { FINISHED, WAITING_EVENT, type AnswerMessage, type WaitingEvent } from "../../runtime/dbos-runs.js";
import { UsageError } from "../errors.js";
import { chosenApprovals } from "./folder-control.js";

/**
 * The questions a run waits for: its own, and those of its unfinished branches (an input inside a
 * `parallel:` branch is asked by the branch's workflow). In the order the workflows were created.
 */
export async function waitingQuestions(client: DBOSClient, runId: string): Promise<WaitingEvent[]> {
  const branches = await client.listWorkflows({ workflow_id_prefix: `${runId}/` });
  const ids = [runId, ...branches.filter((branch) => !FINISHED.has(branch.status)).map((branch) => branch.workflowID)];
  const events = await Promise.all(
    ids.map((id) => client.getEvent<WaitingEvent | null>(id, WAITING_EVENT, { timeoutSeconds: 0 })),
  );
  return events.filter((event): event is WaitingEvent => event !== null && event !== undefined);
}

/**
 * What a waiting run asks, where, and the command that answers it: an input (by the name that names
 * only it among those `waiting`), or a tool call to approve.
 */
export function howToAnswer(runId: string, question: WaitingEvent, waiting: readonly WaitingEvent[]): string {
  const where = whereAsked(question);
  if (!question.name.startsWith(APPROVAL_PREFIX))
    return `for input "${question.name}" (${question.prompt}) at ${where}: prosec answer ${runId} ${answerName(question, waiting)}=...`;
  const call = question.name.slice(APPROVAL_PREFIX.length);
  return `for approval of ${call} (${question.prompt}) at ${where}: prosec approve ${runId} ${call}, or prosec deny ${runId} ${call}`;
}

/** Sends each answer to the workflow waiting for it; the lines to print. */
export async function answerDbosRun(
  client: DBOSClient,
  runId: string,
  answers: { readonly [name: string]: string },
): Promise<string[]> {
  const questions = await waitingQuestions(client, runId);
  if (questions.length === 0) throw new UsageError(`run ${runId} is not waiting for input`);
  const matched = matchAnswers(questions, answers, whereAsked);
  if ("problem" in matched) throw new UsageError(matched.problem);
  if (matched.unmatched.length > 0)
    throw new UsageError(
      `run ${runId} is not waiting for "${matched.unmatched[0]}"; it waits for ${waitingList(questions)}`,
    );
  const lines: string[] = [];
  for (const [question, value] of matched.answers) {
    // One answer per occurrence: sending the same answer twice delivers it once.
    await client.send<AnswerMessage>(
      question.workflowId,
      { value },
      question.key,
      `${question.workflowId}${question.key}`,
    );
    lines.push(`answered "${answerName(question, questions)}" for run ${runId}; its worker goes on`);
  }
  return lines;
}

/** `prosec approve` / `deny`: sends `answer` for the calls chosen (folder-control.ts, chosenApprovals). */
export async function decideDbosRun(
  client: DBOSClient,
  runId: string,
  calls: readonly string[],
  all: boolean,
  answer: string,
): Promise<string[]> {
  const chosen = chosenApprovals(runId, await waitingQuestions(client, runId), calls, all);
  const decided = answer === "yes" ? "approved" : "denied";
  for (const question of chosen)
    await client.send<AnswerMessage>(
      question.workflowId,
      { value: answer },
      question.key,
      `${question.workflowId}${question.key}`,
    );
  return chosen.map(
    (question) => `${decided} ${question.name.slice(APPROVAL_PREFIX.length)} for run ${runId}; its worker goes on`,
  );
}

export async function cancelDbosRun(client: DBOSClient, runId: string): Promise<string[]> {
  await client.cancelWorkflow(runId, { cancelChildren: true });
  return [`run ${runId} cancelled`];
}
