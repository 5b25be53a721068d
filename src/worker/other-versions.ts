/**
 * A worker started under an id whose earlier process served another version of the program (the
 * program was edited, or prosec upgraded, and the worker restarted with the same `--id` after a crash
 * or a kill): DBOS recovers only the runs of its own version, and this worker's heartbeat keeps the
 * others from being adopted, so the earlier process's unfinished runs would stay PENDING under a live
 * worker that never runs them. They go back on their queue instead, still of their version, where a
 * worker of that version takes them and `prosec status` says which version they wait for.
 */
import type { DBOSClient, WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { runAttributes } from "./run-attributes.js";

export async function releaseOtherVersions(
  client: DBOSClient,
  executorId: string,
  version: string,
  queue: string,
  log: (line: string) => void,
): Promise<void> {
  const unfinished = await client.listWorkflows({ status: "PENDING", executorId, hasParent: false });
  const others = unfinished.filter((run) => run.applicationVersion !== undefined && run.applicationVersion !== version);
  const byQueue = new Map<string, WorkflowStatus[]>();
  for (const run of others) {
    const runQueue = runAttributes(run).queue ?? queue;
    byQueue.set(runQueue, [...(byQueue.get(runQueue) ?? []), run]);
  }
  for (const [runQueue, runs] of byQueue) {
    await client.resumeWorkflows(
      runs.map((run) => run.workflowID),
      { queueName: runQueue },
    );
    const versions = [...new Set(runs.map((run) => run.applicationVersion))].join(", ");
    log(
      `${runs.length} unfinished run${runs.length === 1 ? "" : "s"} of version ${versions}, left by an earlier ${executorId} (this one serves ${version}), put back on queue "${runQueue}" for a worker of that version`,
    );
  }
}
