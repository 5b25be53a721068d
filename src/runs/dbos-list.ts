/**
 * The runs a DBOS database holds, as `prosec runs` and `prosec view` list them: read through DBOS's
 * workflow management API (listWorkflows, listWorkflowSteps), never written. A run's cost is what its
 * checkpointed steps used (theirs and its branches'), as a file run's is its journal's: DBOS keeps
 * every finished step's record, usage included. A request aborted with no usage reported (a race's
 * loser) adds the estimate the meter charged it, which its turn's failed checkpoint keeps with its
 * error (meter.ts, ABORTED_ESTIMATE; a checkpoint written before that has none and adds nothing).
 */
import type { DBOSClient, WorkflowStatus } from "@dbos-inc/dbos-sdk";
import pMap from "p-map";
import { RUN_WORKFLOW } from "../../runtime/dbos-runs.js";
import type { Usage } from "../../runtime/index.js";
import { abortedEstimateOf } from "../../runtime/cost.js";
import { estimateCost } from "../run/cost.js";
import { waitingQuestions } from "./dbos-control.js";
import { runAttributes } from "../worker/run-attributes.js";

/**
 * A DBOS status in the words `prosec runs` uses for file runs too: `queued` (ENQUEUED, DELAYED),
 * `running` (PENDING), `waiting` (PENDING, asking for an input), `complete` (SUCCESS), `failed` (ERROR),
 * `cancelled`, `interrupted` (MAX_RECOVERY_ATTEMPTS_EXCEEDED: stopped, resumable).
 */
export type DbosRunStatus = "queued" | "running" | "waiting" | "complete" | "failed" | "cancelled" | "interrupted";

export interface DbosRun {
  readonly runId: string;
  readonly status: DbosRunStatus;
  /** DBOS's own status word. */
  readonly dbosStatus: string;
  /** The program's name, when `prosec submit` recorded it (runs-attributes.ts). */
  readonly program?: string;
  /** The file it was submitted from. */
  readonly source?: string;
  /** The program version workers run it with (the compiled program's code hash). */
  readonly version?: string;
  readonly queue?: string;
  /** The worker that holds it (or last held it). */
  readonly worker?: string;
  /** When it was submitted. */
  readonly startedAt: string;
  readonly updatedAt?: string;
  /** Checkpointed prosec steps, in the run and its branches. */
  readonly steps: number;
  readonly usage: readonly Usage[];
  /** US dollars from list prices; undefined when no model used has a known price. */
  readonly cost: number | undefined;
}

/** One checkpointed prosec step: its key (DBOS's step name) and its record. */
export interface DbosStep {
  readonly key: string;
  /** The workflow it was checkpointed in: the run, or one of its branches. */
  readonly workflowId: string;
  readonly kind: string;
  readonly value: unknown;
  readonly reason?: string;
  readonly usage: readonly Usage[];
  readonly reused: boolean;
  readonly start?: number;
  readonly end?: number;
}

/** A checkpoint as DBOS lists it (its StepInfo, which the package does not export). */
type StepInfo = NonNullable<Awaited<ReturnType<DBOSClient["listWorkflowSteps"]>>>[number];

/** Steps listed at once (each a query on the client's pool). */
const CONCURRENT_QUERIES = 4;

/** Every run in the database, newest first. */
export async function listDbosRuns(client: DBOSClient): Promise<DbosRun[]> {
  const runs = await client.listWorkflows({
    workflowName: RUN_WORKFLOW,
    sortDesc: true,
    loadInput: false,
    loadOutput: false,
  });
  if (runs.length === 0) return [];
  const branches = await client.listWorkflows({
    workflow_id_prefix: runs.map((run) => `${run.workflowID}/`),
    loadInput: false,
    loadOutput: false,
  });
  const checkpoints = await stepsOfWorkflows(client, [...runs, ...branches]);
  return pMap(runs, async (run) => describe(client, run, checkpoints), { concurrency: CONCURRENT_QUERIES });
}

/** One run's description, or undefined when the database has no run of that id. */
export async function describeDbosRun(client: DBOSClient, runId: string): Promise<DbosRun | undefined> {
  const run = await client.getWorkflow(runId);
  if (run === undefined || run.workflowName !== RUN_WORKFLOW) return undefined;
  const checkpoints = await runCheckpoints(client, runId);
  return describe(client, run, new Map([[runId, checkpoints]]));
}

/** A run's checkpointed steps and its branches', in the order they started. */
export async function dbosRunSteps(client: DBOSClient, runId: string): Promise<DbosStep[]> {
  return (await runCheckpoints(client, runId)).steps;
}

/** An aborted request's estimate (dollars), kept with its turn's checkpoint (meter.ts, ABORTED_ESTIMATE). */
interface AbortedEstimate {
  readonly dollars: number;
  readonly start?: number;
}

/** A run's prosec steps and the estimates its aborted requests were charged, in it and its branches. */
interface Checkpoints {
  readonly steps: DbosStep[];
  readonly estimates: AbortedEstimate[];
}

async function runCheckpoints(client: DBOSClient, runId: string): Promise<Checkpoints> {
  const branches = await client.listWorkflows({
    workflow_id_prefix: `${runId}/`,
    loadInput: false,
    loadOutput: false,
  });
  const byRun = await stepsOfWorkflows(client, [{ workflowID: runId }, ...branches]);
  const checkpoints = byRun.get(runId) ?? { steps: [], estimates: [] };
  checkpoints.steps.sort((a, b) => (a.start ?? Infinity) - (b.start ?? Infinity));
  return checkpoints;
}

/** The prosec steps of each workflow, gathered under the run they belong to (a branch's id starts with its run's). */
async function stepsOfWorkflows(
  client: DBOSClient,
  workflows: ReadonlyArray<Pick<WorkflowStatus, "workflowID">>,
): Promise<Map<string, Checkpoints>> {
  const listed = await pMap(
    workflows,
    async (workflow) => {
      const steps = (await client.listWorkflowSteps(workflow.workflowID)) ?? [];
      return {
        steps: steps.flatMap((step) => prosecStep(workflow.workflowID, step)),
        estimates: steps.flatMap(abortedEstimate),
      };
    },
    { concurrency: CONCURRENT_QUERIES },
  );
  const byRun = new Map<string, Checkpoints>();
  workflows.forEach((workflow, index) => {
    const runId = workflow.workflowID.split("/")[0]!;
    const gathered = byRun.get(runId) ?? { steps: [], estimates: [] };
    gathered.steps.push(...listed[index]!.steps);
    gathered.estimates.push(...listed[index]!.estimates);
    byRun.set(runId, gathered);
  });
  return byRun;
}

/**
 * A checkpoint that is a prosec step's record (see RecordedStep); others (a branch's start, an event,
 * a message received, a session's turns) are DBOS's or the session's own and are not steps.
 */
function prosecStep(workflowId: string, step: StepInfo): DbosStep[] {
  if (!isStepRecord(step)) return [];
  const output = step.output as { kind: string; value?: unknown; reason?: unknown; usage: unknown[]; reused?: unknown };
  return [
    {
      key: step.name,
      workflowId,
      kind: output.kind,
      value: output.value,
      ...(typeof output.reason === "string" ? { reason: output.reason } : {}),
      usage: output.usage as Usage[],
      reused: output.reused === true,
      ...(step.startedAtEpochMs === undefined ? {} : { start: step.startedAtEpochMs }),
      ...(step.completedAtEpochMs === undefined ? {} : { end: step.completedAtEpochMs }),
    },
  ];
}

/** The estimate a failed checkpoint's aborted request was charged (a turn's error carries it), if any. */
function abortedEstimate(step: StepInfo): AbortedEstimate[] {
  const dollars = abortedEstimateOf(step.error);
  if (dollars === 0) return [];
  return [{ dollars, ...(step.startedAtEpochMs === undefined ? {} : { start: step.startedAtEpochMs }) }];
}

/** Whether a checkpoint is a prosec step's record (see prosecStep). */
export function isStepRecord(step: StepInfo): boolean {
  const output = step.output as { kind?: unknown; usage?: unknown } | null | undefined;
  if (step.childWorkflowID !== null || typeof output !== "object" || output === null) return false;
  return typeof output.kind === "string" && Array.isArray(output.usage);
}

async function describe(
  client: DBOSClient,
  run: WorkflowStatus,
  checkpointsByRun: ReadonlyMap<string, Checkpoints>,
): Promise<DbosRun> {
  const { steps, estimates } = checkpointsByRun.get(run.workflowID) ?? { steps: [], estimates: [] };
  // A step taken over from an earlier run was paid for there; so was one DBOS copied into a fork (it
  // keeps its start time, from before the fork was created).
  const copied = (step: DbosStep): boolean =>
    run.forkedFrom !== undefined && step.start !== undefined && step.start < run.createdAt;
  const usage = steps.filter((step) => !step.reused && !copied(step)).flatMap((step) => step.usage);
  // A request aborted with no usage reported (a race's loser) was charged its estimate, kept with its turn.
  const aborted = estimates
    .filter(
      (estimate) => !(run.forkedFrom !== undefined && estimate.start !== undefined && estimate.start < run.createdAt),
    )
    .reduce((sum, estimate) => sum + estimate.dollars, 0);
  const priced = estimateCost(usage);
  const attributes = runAttributes(run);
  // DBOS has no WAITING status: a PENDING run whose workflows publish a question is waiting.
  const waiting = run.status === "PENDING" && (await waitingQuestions(client, run.workflowID)).length > 0;
  return {
    runId: run.workflowID,
    status: waiting ? "waiting" : statusWord(run.status),
    dbosStatus: run.status,
    ...(attributes.program === undefined ? {} : { program: attributes.program }),
    ...(attributes.source === undefined ? {} : { source: attributes.source }),
    ...(run.applicationVersion ? { version: run.applicationVersion } : {}),
    ...((run.queueName ?? attributes.queue) ? { queue: run.queueName ?? attributes.queue } : {}),
    ...(run.executorId && run.status !== "ENQUEUED" ? { worker: run.executorId } : {}),
    startedAt: new Date(run.createdAt).toISOString(),
    ...(run.updatedAt === undefined ? {} : { updatedAt: new Date(run.updatedAt).toISOString() }),
    steps: steps.length,
    usage,
    cost: aborted === 0 ? priced : (priced ?? 0) + aborted,
  };
}

function statusWord(status: string): DbosRunStatus {
  switch (status) {
    case "SUCCESS":
      return "complete";
    case "ERROR":
      return "failed";
    case "CANCELLED":
      return "cancelled";
    case "MAX_RECOVERY_ATTEMPTS_EXCEEDED":
      return "interrupted";
    case "PENDING":
      return "running";
    default:
      return "queued";
  }
}
