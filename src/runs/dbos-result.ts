/**
 * The end of a DBOS run, waited for from outside: `prosec result`, and `prosec run --resume` of a run
 * a worker continues. Why a queued run is not taken, when no worker can take it.
 */
import type { DBOSClient, WorkflowStatus } from "@dbos-inc/dbos-sdk";
import type { Outputs } from "../../runtime/dbos-runs.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { printOutputs } from "../run/outputs.js";
import type { LiveWorker } from "../worker/database.js";
import { findRun } from "../worker/client.js";
import { jsonText } from "../json-text.js";
import { terminalText } from "../printable.js";

/** How `result` was asked: the run, as JSON lines or not, waiting how long (seconds). */
export interface ResultArguments {
  readonly runId: string;
  readonly json: boolean;
  readonly timeout?: number;
}

/** How often the run's status is read while it is waited for. */
export const RESULT_POLL_MS = 200;

/**
 * Why a queued run is not taken, when no live worker can take it: a worker only dequeues runs of the
 * program version it compiled, so after the program changed, old runs wait for a worker of the old one.
 */
export function whyWaiting(version: string | undefined, queue: string, workers: readonly LiveWorker[]): string | null {
  if (workers.length === 0)
    return `no worker serves queue "${queue}": start \`prosec worker <program> --queue ${queue}\``;
  if (version === undefined || workers.some((worker) => worker.version === version)) return null;
  const serving = workers.map((worker) => `${worker.id}: ${worker.version ?? "unknown"}`).join(", ");
  return `for a worker of version ${version}: the workers on queue "${queue}" serve other versions (${serving}). The run was submitted with another version of the program (or of prosec); start a worker of that one to run it`;
}

/** DBOS's statuses of a run that has not ended. */
export const UNFINISHED: ReadonlySet<WorkflowStatus["status"]> = new Set(["ENQUEUED", "PENDING", "DELAYED"]);

/** What `result` knows while it waits: the deadline, the run's last status, when the database last answered. */
export class ResultWait {
  status: WorkflowStatus["status"] | undefined;
  private answeredAt = Date.now();

  constructor(readonly deadline: number) {}

  answered(status: WorkflowStatus["status"]): void {
    this.status = status;
    this.answeredAt = Date.now();
  }

  silentForMs(): number {
    return Date.now() - this.answeredAt;
  }
}

export async function awaitResult(client: DBOSClient, argv: ResultArguments, wait: ResultWait): Promise<ExitCode> {
  let status = await findRun(client, argv.runId);
  wait.answered(status.status);
  while (UNFINISHED.has(status.status) && Date.now() < wait.deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(RESULT_POLL_MS, wait.deadline - Date.now())));
    status = (await client.getWorkflow(argv.runId)) ?? status;
    wait.answered(status.status);
  }
  if (UNFINISHED.has(status.status)) {
    reportPending(argv, status.status, 0);
    return EXIT.pending;
  }
  if (status.status === "CANCELLED") {
    if (argv.json) process.stdout.write(`${jsonText({ type: "cancelled", runId: argv.runId })}\n`);
    process.stderr.write(terminalText(`prosec: run ${argv.runId} was cancelled (prosec cancel); it has no outputs\n`));
    return EXIT.failed;
  }
  let outputs: Outputs;
  try {
    outputs = await client.retrieveWorkflow<Outputs>(argv.runId).getResult();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (argv.json) process.stdout.write(`${jsonText({ type: "failed", runId: argv.runId, message })}\n`);
    // The message is the run's: a model's or a tool's text, which a terminal must not take as escape sequences.
    process.stderr.write(terminalText(`prosec: run ${argv.runId} failed: ${message}\n`));
    return EXIT.failed;
  }
  printOutputs(outputs, argv.json, argv.runId);
  return EXIT.ok;
}

export function reportPending(argv: ResultArguments, status: WorkflowStatus["status"], silentForMs: number): void {
  if (argv.json) process.stdout.write(`${jsonText({ type: "pending", runId: argv.runId, status })}\n`);
  // A status read longer ago than a poll or two is the last the database said before it went away.
  const silence =
    silentForMs > 2 * RESULT_POLL_MS
      ? ` (as of ${(silentForMs / 1000).toFixed(1)} s ago: the database has not answered since)`
      : "";
  process.stderr.write(
    terminalText(
      `prosec: run ${argv.runId} is still pending (${status})${silence} after ${argv.timeout} s; see \`prosec status ${argv.runId}\`\n`,
    ),
  );
}
