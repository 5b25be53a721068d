/**
 * `prosec run --resume ID --from LINE` for a run in the DBOS database: DBOS's `forkWorkflow` starts a
 * new run whose checkpoints before a start step are copies of the run's, and which runs the rest. The
 * start step is the run's first checkpoint at or after LINE (a session's first turn, never one inside
 * it: its checkpoints all carry the session's line). A branch (a child workflow) started before it is
 * reused when it finished; one that did not is where the fork starts. The run forked stays as it was.
 * Then this command waits for the new run's outcome, as `prosec result` does.
 */
import type { DBOSClient, WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { recordedLine } from "../../runtime/stored-runs.js";
import { newRunId } from "../../runtime/stored-runs.js";
import { UsageError } from "../errors.js";
import type { ExitCode } from "../exit-codes.js";
import { EXIT } from "../exit-codes.js";
import { findRun, withClient } from "../worker/client.js";
import { awaitResult, ResultWait, whyWaiting } from "./dbos-result.js";
import { liveWorkers } from "../worker/database.js";
import { isStepRecord } from "./dbos-list.js";
import { DEFAULT_QUEUE, runAttributes } from "../worker/run-attributes.js";
import { jsonText } from "../json-text.js";
import { terminalText } from "../printable.js";

export interface DbosForkOptions {
  readonly runId: string;
  readonly line: number;
  readonly json: boolean;
  /** The program's version when the command named a file: it must be the run's. */
  readonly version?: string;
}

type StepInfo = NonNullable<Awaited<ReturnType<DBOSClient["listWorkflowSteps"]>>>[number];

export function forkDbosRun(url: string, options: DbosForkOptions): Promise<ExitCode> {
  return withClient(url, async (client) => {
    const status = await findRun(client, options.runId);
    const version = status.applicationVersion;
    if (options.version !== undefined && version && options.version !== version)
      throw new UsageError(
        `--from: run ${options.runId} is of program version ${version}, the file given compiles to ${options.version}. A DBOS run forks with the program it ran: give its file unchanged, or no file (editing the program of a DBOS run is not supported)`,
      );
    const cut = await forkPoint(client, status, options.line);
    if (cut === undefined)
      throw new UsageError(
        `--from ${options.line}: run ${options.runId} recorded no step at or after line ${options.line}: there is nothing to run again`,
      );
    const queue = runAttributes(status).queue ?? DEFAULT_QUEUE;
    const forkId = await client.forkWorkflow(options.runId, cut.startStep, {
      newWorkflowID: newRunId(new Date()),
      queueName: queue,
      ...(version ? { applicationVersion: version } : {}),
    });
    say(
      `forked run ${options.runId} into ${forkId}: reusing the ${cut.reused} ${cut.reused === 1 ? "step" : "steps"} it recorded before line ${cut.line}`,
    );
    const reason = whyWaiting(version, queue, await liveWorkers(url, queue));
    if (reason !== null) {
      if (options.json) process.stdout.write(`${jsonText({ type: "pending", runId: forkId, status: "ENQUEUED" })}\n`);
      say(`run ${forkId} waits ${reason}; prosec result ${forkId} waits for its outputs`);
      return EXIT.pending;
    }
    return awaitResult(client, { runId: forkId, json: options.json }, new ResultWait(Infinity));
  });
}

interface ForkPoint {
  /** DBOS's function id of the first checkpoint the new run does not copy. */
  readonly startStep: number;
  /** The line of the construct it belongs to. */
  readonly line: number;
  /** Prosec steps copied, the reused branches' included. */
  readonly reused: number;
}

/** Where the run's fork from `line` starts; undefined when it recorded nothing at or after the line. */
async function forkPoint(client: DBOSClient, run: WorkflowStatus, line: number): Promise<ForkPoint | undefined> {
  const runId = run.workflowID;
  const branches = await client.listWorkflows({ workflow_id_prefix: `${runId}/`, loadInput: false, loadOutput: false });
  const stepsOf = new Map<string, StepInfo[]>();
  for (const workflow of [run, ...branches])
    stepsOf.set(workflow.workflowID, (await client.listWorkflowSteps(workflow.workflowID)) ?? []);
  const status = new Map(branches.map((branch) => [branch.workflowID, branch.status]));
  // A branch's checkpoints and those of the branches inside it, each with its line.
  const within = (childId: string): StepInfo[] =>
    [...stepsOf].filter(([id]) => id === childId || id.startsWith(`${childId}/`)).flatMap(([, steps]) => steps);
  const lineOf = (step: StepInfo): number | undefined =>
    step.childWorkflowID === null
      ? recordedLine({ key: step.name })
      : Math.max(
          recordedLine({ key: step.childWorkflowID.slice(runId.length) }) ?? 0,
          ...within(step.childWorkflowID).map((inner) => recordedLine({ key: inner.name }) ?? 0),
        );
  const steps = [...stepsOf.get(runId)!].sort((a, b) => a.functionID - b.functionID);
  let reused = 0;
  for (const step of steps) {
    const at = lineOf(step);
    const child = step.childWorkflowID;
    const unfinishedBranch = child !== null && status.get(child) !== "SUCCESS";
    if ((at !== undefined && at >= line) || unfinishedBranch)
      return { startStep: step.functionID, line: at ?? line, reused };
    reused += (child === null ? [step] : within(child)).filter(isStepRecord).length;
  }
  return undefined;
}

/** A line about a stored run: its messages, versions and queue are the database's, which a terminal must not take as escape sequences. */
function say(line: string): void {
  process.stderr.write(terminalText(`prosec: ${line}\n`));
}
