/**
 * `prosec run --resume ID` for a run in the DBOS database: DBOS's `resumeWorkflow` puts a cancelled
 * run, or one stopped after too many recovery attempts, back on its queue, and a worker of its program
 * version continues it from its last checkpointed step (its finished steps are replayed, not asked
 * again). Then this command waits for the run's outcome, as `prosec result` does. A run that is not
 * stopped is not resumed: a running or queued one is left to its worker, a waiting one wants its
 * answer, a finished one prints its outputs, a failed one says why.
 */
import type { DBOSClient, WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { findRun, withClient } from "../worker/client.js";
import { awaitResult, ResultWait, whyWaiting } from "./dbos-result.js";
import { howToAnswer, waitingQuestions } from "./dbos-control.js";
import { answerName } from "../../runtime/stored-runs.js";
import { liveWorkers } from "../worker/database.js";
import { dbosRunSteps } from "./dbos-list.js";
import { DEFAULT_QUEUE, runAttributes } from "../worker/run-attributes.js";
import { jsonText } from "../json-text.js";
import { terminalText } from "../printable.js";

export interface DbosResumeOptions {
  readonly runId: string;
  readonly json: boolean;
  /** The program's version when the command named a file: a different one is worth a warning. */
  readonly version?: string;
}

/** DBOS statuses `resumeWorkflow` continues from the last checkpoint. */
const STOPPED: ReadonlySet<string> = new Set(["CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

export function resumeDbosRun(url: string, options: DbosResumeOptions): Promise<ExitCode> {
  return withClient(url, async (client) => {
    const { runId } = options;
    const status = await findRun(client, runId);
    if (options.version !== undefined && status.applicationVersion && options.version !== status.applicationVersion)
      say(
        `warning: run ${runId} is of program version ${status.applicationVersion}, the file given compiles to ${options.version}: workers of ${status.applicationVersion} continue it`,
      );
    if (STOPPED.has(status.status)) return resumeStopped(client, url, status, options);
    const wait = { runId, json: options.json };
    switch (status.status) {
      case "SUCCESS":
        say(`run ${runId} had finished: nothing to resume; its outputs follow`);
        return awaitResult(client, wait, new ResultWait(Infinity));
      case "ERROR":
        return reportFailed(client, status, options.json);
      case "PENDING": {
        const questions = await waitingQuestions(client, runId);
        if (questions.length > 0) {
          const named = questions.map((question) => ({ ...question, answer: answerName(question, questions) }));
          if (options.json) process.stdout.write(`${jsonText({ type: "waiting", runId, questions: named })}\n`);
          for (const question of questions)
            say(`run ${runId} is waiting ${howToAnswer(runId, question, questions)}; its worker goes on by itself`);
          return EXIT.waitingForInput;
        }
        say(
          `run ${runId} is running on worker ${status.executorId ?? "?"}: there is nothing to resume. prosec result ${runId} waits for it; prosec cancel ${runId} stops it`,
        );
        return EXIT.runStateUnusable;
      }
      default:
        say(
          `run ${runId} is queued (${status.status}) on queue "${status.queueName ?? DEFAULT_QUEUE}": there is nothing to resume; a worker of version ${status.applicationVersion ?? "?"} takes it. prosec status ${runId} says more`,
        );
        return EXIT.runStateUnusable;
    }
  });
}

async function resumeStopped(
  client: DBOSClient,
  url: string,
  status: WorkflowStatus,
  options: DbosResumeOptions,
): Promise<ExitCode> {
  const runId = status.workflowID;
  // DBOS forgets a cancelled workflow's queue: the one `prosec submit` recorded, else submit's default.
  const queue = runAttributes(status).queue ?? DEFAULT_QUEUE;
  const steps = (await dbosRunSteps(client, runId)).length;
  await client.resumeWorkflow(runId, { queueName: queue });
  const was = status.status === "CANCELLED" ? "cancelled" : "stopped after too many recovery attempts";
  say(
    `run ${runId} (${was}) is back on queue "${queue}": a worker of version ${status.applicationVersion ?? "?"} continues it after its ${steps} checkpointed step${steps === 1 ? "" : "s"}`,
  );
  const reason = whyWaiting(status.applicationVersion, queue, await liveWorkers(url, queue));
  if (reason !== null) {
    // Nothing here can run it: waiting would hang a script. It is queued; a worker started later takes it.
    if (options.json) process.stdout.write(`${jsonText({ type: "pending", runId, status: "ENQUEUED" })}\n`);
    say(`run ${runId} waits ${reason}; prosec result ${runId} waits for its outputs`);
    return EXIT.pending;
  }
  return awaitResult(client, { runId, json: options.json }, new ResultWait(Infinity));
}

/** A failed run: DBOS does not resume one (its outcome is recorded); the error and what to do instead. */
async function reportFailed(client: DBOSClient, status: WorkflowStatus, json: boolean): Promise<ExitCode> {
  const runId = status.workflowID;
  let message = "unknown error";
  try {
    await client.retrieveWorkflow(runId).getResult();
  } catch (error) {
    message = error instanceof Error ? error.message : String(error);
  }
  if (json) process.stdout.write(`${jsonText({ type: "failed", runId, message })}\n`);
  say(
    `run ${runId} failed: ${message}. A failed DBOS run is not resumed (its outcome is recorded): submit it again with prosec submit`,
  );
  return EXIT.failed;
}

/** A line about a stored run: its messages, versions and queue are the database's, which a terminal must not take as escape sequences. */
function say(line: string): void {
  process.stderr.write(terminalText(`prosec: ${line}\n`));
}
