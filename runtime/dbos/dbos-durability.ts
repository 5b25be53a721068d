/**
 * Durability on DBOS Transact: a run is a workflow, every step a checkpoint named by its key, and
 * every concurrent branch a child workflow whose id is the run id plus the branch's key.
 *
 * DBOS numbers a workflow's steps in the order they start, and replays by that number: steps of
 * concurrent branches in one workflow start in a different order on replay, so each branch gets a
 * workflow (a step sequence) of its own. A branch's body lives only in the process running its
 * parent, so a parent that finds its child already started elsewhere, or left over from a crash,
 * pulls it onto its own worker's queue (`resumeWorkflow`) and runs it there.
 *
 * Reads and moves of child workflows go through a `DBOSClient`: done from inside the workflow, DBOS
 * would checkpoint them as steps, in an order that depends on timing.
 */
import { DBOS, type DBOSClient, type WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { StepMismatch } from "../durability.js";
import type { Durability, DurableStep, RecordedStep, StepKind, Value } from "../types.js";
import { BranchRegistry } from "./branch-registry.js";

export interface DbosBackend {
  /** Reads workflow statuses and results, and moves workflows between queues. */
  readonly client: DBOSClient;
  /** This worker's own queue: the one only it dequeues from. */
  readonly ownQueue: string;
  /** The branch workflow (registered with DBOS before launch). */
  readonly branchWorkflow: () => Promise<Value>;
  readonly branches: BranchRegistry;
  /** How often a waiting branch or parent looks at the store again. */
  readonly pollMs: number;
}

/** Workflow statuses that no longer change. */
export const FINISHED: ReadonlySet<string> = new Set(["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

export class DbosDurability implements Durability {
  constructor(
    private readonly runId: string,
    private readonly backend: DbosBackend,
  ) {}

  async step(key: string, kind: StepKind, execute: () => Promise<RecordedStep>): Promise<DurableStep> {
    let ran = false;
    const step = await DBOS.runStep(
      () => {
        ran = true;
        return execute();
      },
      { name: key, retriesAllowed: false },
    );
    if (!ran && step.kind !== kind) throw new StepMismatch(key, step.kind);
    return { step, replayed: !ran };
  }

  branch<T extends Value>(key: string, body: () => Promise<T>): Promise<T> {
    const id = this.runId + key;
    const { branches } = this.backend;
    const result = branches.offer(id, body);
    // Called before any await: DBOS numbers the child's start in the parent's step sequence now.
    const started = DBOS.startWorkflow(this.backend.branchWorkflow, { workflowID: id })();
    return started.then((handle) => ("workflowPromise" in handle ? result : this.settle(id, result))) as Promise<T>;
  }

  scope(): string {
    return DBOS.workflowID ?? "";
  }

  /** The outcome of a child workflow that an earlier execution of the run had started. */
  private async settle(id: string, result: Promise<Value>): Promise<Value> {
    const { client, branches, pollMs } = this.backend;
    let status = await client.getWorkflow(id);
    if (status !== undefined && !FINISHED.has(status.status) && !this.runsHere(id, status)) {
      await client.resumeWorkflow(id, { queueName: this.backend.ownQueue });
    }
    for (;;) {
      if (status !== undefined && FINISHED.has(status.status)) {
        branches.forget(id);
        return (await client.retrieveWorkflow<Value>(id).getResult()) ?? null;
      }
      const outcome = await Promise.race([result.then(() => "done" as const, () => "done" as const), delay(pollMs)]);
      if (outcome === "done") return result;
      status = await client.getWorkflow(id);
    }
  }

  private runsHere(id: string, status: WorkflowStatus): boolean {
    return this.backend.branches.claimed(id) || (status.status === "PENDING" && status.executorId === DBOS.executorID);
  }
}

function delay(ms: number): Promise<"waiting"> {
  return new Promise((resolve) => setTimeout(() => resolve("waiting"), ms));
}
