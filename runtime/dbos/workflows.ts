/**
 * The two workflows a prosec worker registers with DBOS: a run of its program, and a branch of a
 * run (see dbos-durability.ts). Both are registered before DBOS launches, as DBOS requires.
 */
import { DBOS, DBOSWorkflowConflictError, type DBOSClient } from "@dbos-inc/dbos-sdk";
import type { RunOptions, Value } from "../types.js";
import { BranchRegistry } from "./branch-registry.js";
import { DbosDurability, FINISHED, type DbosBackend } from "./dbos-durability.js";
import { runTraceparent } from "../telemetry/traceparent.js";

export const RUN_WORKFLOW = "prosec.run";
export const BRANCH_WORKFLOW = "prosec.branch";

export type Outputs = { readonly [name: string]: Value };
export type Inputs = { readonly [name: string]: Value };

export interface ProgramRunner {
  run(inputs: Inputs, options?: RunOptions): Promise<Outputs>;
}

export interface WorkflowSettings {
  readonly client: DBOSClient;
  readonly ownQueue: string;
  readonly pollMs: number;
  /** Options of every run (model server, concurrency, events); the run id and durability are added. */
  readonly runOptions: (runId: string) => RunOptions;
  readonly stops: RunStops;
}

/**
 * How an execution of a run learns that it must stop: the run was cancelled, taken over by another
 * worker, or this worker is shutting down. What a stopped execution did after it stopped is never
 * recorded: its steps and its outcome are refused as DBOS refuses an execution that lost its run.
 */
export interface RunStops {
  /** The execution of `runId` starts: its signal (RunOptions.signal) and boundary check. */
  start(runId: string): { readonly signal: AbortSignal; readonly atBoundary: RunOptions["atBoundary"] };
  /** Whether the execution of `runId` in this process was stopped. */
  stopped(runId: string): boolean;
  end(runId: string): void;
}

/** Registers the run and branch workflows of `program`; returns the run workflow. */
export function registerProgram(
  program: ProgramRunner,
  settings: WorkflowSettings,
): (inputs: Inputs) => Promise<Outputs> {
  const { client, pollMs } = settings;
  const branches = new BranchRegistry();

  const branchWorkflow = DBOS.registerWorkflow(
    async (): Promise<Value> => {
      const id = DBOS.workflowID!;
      const runId = id.slice(0, id.indexOf("/"));
      const stillOwned = async (): Promise<boolean> => {
        const [own, run] = await Promise.all([client.getWorkflow(id), client.getWorkflow(runId)]);
        return (
          own?.status === "PENDING" &&
          own.executorId === DBOS.executorID &&
          run !== undefined &&
          !FINISHED.has(run.status)
        );
      };
      try {
        return await branches.run(id, stillOwned, pollMs);
      } catch (error) {
        if (settings.stops.stopped(runId)) throw new DBOSWorkflowConflictError(id);
        throw error;
      }
    },
    { name: BRANCH_WORKFLOW },
  );

  const backend: DbosBackend = { client, ownQueue: settings.ownQueue, branchWorkflow, branches, pollMs };
  return DBOS.registerWorkflow(
    async (inputs: Inputs): Promise<Outputs> => {
      const runId = DBOS.workflowID!;
      const { signal, atBoundary } = settings.stops.start(runId);
      try {
        return await program.run(inputs, {
          ...settings.runOptions(runId),
          runId,
          signal,
          atBoundary,
          traceParent: runTraceparent(runId),
          durability: new DbosDurability(runId, backend, {
            runId,
            stopped: () => settings.stops.stopped(runId),
            // The boundary check looks at the run in the database; its verdict is what matters here.
            recheck: () => atBoundary?.("turn").catch(() => undefined) ?? Promise.resolve(),
          }),
        });
      } catch (error) {
        // Nothing of a stopped execution is recorded: the run's outcome is the one of whoever has it now.
        if (signal.aborted) throw new DBOSWorkflowConflictError(runId);
        throw error;
      } finally {
        settings.stops.end(runId);
      }
    },
    { name: RUN_WORKFLOW },
  );
}
