/**
 * The two workflows a prosec worker registers with DBOS: a run of its program, and a branch of a
 * run (see dbos-durability.ts). Both are registered before DBOS launches, as DBOS requires.
 */
import { DBOS, type DBOSClient } from "@dbos-inc/dbos-sdk";
import type { RunOptions, Value } from "../types.js";
import { BranchRegistry } from "./branch-registry.js";
import { DbosDurability, FINISHED, type DbosBackend } from "./dbos-durability.js";

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
      return branches.run(id, stillOwned, pollMs);
    },
    { name: BRANCH_WORKFLOW },
  );

  const backend: DbosBackend = { client, ownQueue: settings.ownQueue, branchWorkflow, branches, pollMs };
  return DBOS.registerWorkflow(
    async (inputs: Inputs): Promise<Outputs> => {
      const runId = DBOS.workflowID!;
      return program.run(inputs, {
        ...settings.runOptions(runId),
        runId,
        durability: new DbosDurability(runId, backend),
      });
    },
    { name: RUN_WORKFLOW },
  );
}
