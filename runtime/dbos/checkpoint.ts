/**
 * One DBOS step of a run: its body runs once per workflow, and a recovered execution reads the
 * checkpoint instead. What a stopped execution's step throws is not its outcome (the run was
 * cancelled, taken over or released, see workflows.ts): it is refused as DBOS refuses an execution
 * that lost its run, so DBOS records nothing for it.
 */
import { DBOS, DBOSWorkflowConflictError, Error as DBOSErrors } from "@dbos-inc/dbos-sdk";

/** How a step learns that the execution of its run was stopped. */
export interface RunStop {
  readonly runId: string;
  /** Whether this execution of the run was stopped. */
  stopped(): boolean;
  /** Looks at the run in the database now: a run cancelled or taken over is stopped from here on. */
  recheck(): Promise<void>;
}

export interface Checkpointed<T> {
  readonly value: T;
  /** Whether the body ran now (false: the value is the checkpoint an earlier execution recorded). */
  readonly ran: boolean;
}

export async function checkpoint<T>(name: string, body: () => Promise<T>, run: RunStop): Promise<Checkpointed<T>> {
  let ran = false;
  try {
    const value = await DBOS.runStep(
      async () => {
        ran = true;
        try {
          return await body();
        } catch (error) {
          if (run.stopped()) throw new DBOSWorkflowConflictError(run.runId);
          throw error;
        }
      },
      { name, retriesAllowed: false },
    );
    return { value, ran };
  } catch (error) {
    // DBOS refused the step because the run was cancelled or taken over before this worker noticed
    // (it looks every quarter second): it notices now, so the run ends as stopped, not as failed.
    if (lostRun(error) && !run.stopped()) await run.recheck();
    throw error;
  }
}

function lostRun(error: unknown): boolean {
  return error instanceof DBOSWorkflowConflictError || error instanceof DBOSErrors.DBOSWorkflowCancelledError;
}
