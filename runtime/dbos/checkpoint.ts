/**
 * One DBOS step of a run: its body runs once per workflow, and a recovered execution reads the
 * checkpoint instead. What a stopped execution's step throws is not its outcome (the run was
 * cancelled, taken over or released, see workflows.ts): it is refused as DBOS refuses an execution
 * that lost its run, so DBOS records nothing for it.
 */
import { DBOS, DBOSWorkflowConflictError } from "@dbos-inc/dbos-sdk";

/** Whether the execution of a run in this process was stopped. */
export interface Stopped {
  readonly runId: string;
  readonly stopped: () => boolean;
}

export interface Checkpointed<T> {
  readonly value: T;
  /** Whether the body ran now (false: the value is the checkpoint an earlier execution recorded). */
  readonly ran: boolean;
}

export async function checkpoint<T>(name: string, body: () => Promise<T>, run: Stopped): Promise<Checkpointed<T>> {
  let ran = false;
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
}
