/**
 * The runs a DBOS database holds (DBOS_SYSTEM_DATABASE_URL): the RunStore of `prosec submit`'s runs.
 * Read through DBOS's workflow management API (dbos-list.ts); answered and cancelled by messages to
 * the waiting workflows (dbos-control.ts); resumed and forked by putting them back on their queue for
 * a worker of their program version (dbos-resume.ts, dbos-fork.ts). Every operation opens a client
 * for its own span and closes it.
 */
import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import type { Usage } from "../../runtime/index.js";
import { estimateCost } from "../run/cost.js";
import { findRun, withClient } from "../worker/client.js";
import { DatabaseUnreachable, NoRunsDatabase } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import { answerDbosRun, cancelDbosRun, decideDbosRun, howToAnswer, waitingQuestions } from "./dbos-control.js";
import { forkDbosRun } from "./dbos-fork.js";
import { dbosRunSteps, describeDbosRun, listDbosRuns, type DbosRun, type DbosStep } from "./dbos-list.js";
import { resumeDbosRun } from "./dbos-resume.js";
import type {
  Answers,
  Continuation,
  ContinueOptions,
  Decision,
  FoundRun,
  Pruned,
  RunListing,
  RunStore,
  StoredRun,
  StoredStep,
} from "./run-store.js";

const LISTED = { stores: ["dbos"], where: "in the DBOS database" } as const;

export class DbosRuns implements RunStore {
  constructor(private readonly url: string) {}

  /** The runs, newest first; an unreachable database, or one no run was submitted to, lists none and says why. */
  async list(): Promise<RunListing> {
    try {
      return { ...LISTED, runs: (await withClient(this.url, listDbosRuns)).map(storedRun) };
    } catch (error) {
      if (error instanceof DatabaseUnreachable)
        return { ...LISTED, runs: [], problem: { message: error.message, code: EXIT.network } };
      // A database no run was submitted to holds none: nothing is wrong.
      if (error instanceof NoRunsDatabase)
        return { ...LISTED, runs: [], problem: { message: `no DBOS runs: ${error.message}`, code: EXIT.ok } };
      throw error;
    }
  }

  find(runId: string): Promise<FoundRun | undefined> {
    return withClient(this.url, (client) => foundRun(client, runId));
  }

  steps(runId: string): Promise<StoredStep[]> {
    return withClient(this.url, async (client) => {
      await findRun(client, runId);
      return (await dbosRunSteps(client, runId)).map(storedStep);
    });
  }

  answer(runId: string, answers: Answers): Promise<string[]> {
    return withClient(this.url, async (client) => {
      await findRun(client, runId);
      return answerDbosRun(client, runId, answers);
    });
  }

  approve(runId: string, decision: Decision): Promise<string[]> {
    return withClient(this.url, async (client) => {
      await findRun(client, runId);
      return decideDbosRun(client, runId, decision.calls, decision.all, "yes");
    });
  }

  deny(runId: string, decision: Decision & { readonly reason?: string }): Promise<string[]> {
    const answer = decision.reason === undefined ? "no" : `no: ${decision.reason}`;
    return withClient(this.url, async (client) => {
      await findRun(client, runId);
      return decideDbosRun(client, runId, decision.calls, decision.all, answer);
    });
  }

  cancel(runId: string): Promise<string[]> {
    return withClient(this.url, async (client) => {
      await findRun(client, runId);
      return cancelDbosRun(client, runId);
    });
  }

  /** A worker of the run's version continues it; this waits for its outputs, as `prosec result` does. */
  async resume(runId: string, options: ContinueOptions): Promise<Continuation> {
    return { ended: await resumeDbosRun(this.url, { runId, ...continueOptions(options) }) };
  }

  async fork(runId: string, line: number, options: ContinueOptions): Promise<Continuation> {
    return { ended: await forkDbosRun(this.url, { runId, line, ...continueOptions(options) }) };
  }

  /** DBOS keeps its runs by its own retention (docs/dbos.md): `prosec runs prune` removes folder runs only. */
  prune(): Promise<Pruned> {
    return Promise.resolve({ removed: [], running: [] });
  }
}

function continueOptions(options: ContinueOptions): { json: boolean; version?: string } {
  return { json: options.json, ...(options.version === undefined ? {} : { version: options.version }) };
}

async function foundRun(client: DBOSClient, runId: string): Promise<FoundRun | undefined> {
  const run = await describeDbosRun(client, runId);
  if (run === undefined) return undefined;
  const stored = storedRun(run);
  if (run.dbosStatus === "SUCCESS")
    return { ...stored, outputs: await client.retrieveWorkflow(runId).getResult(), waitingFor: [] };
  if (run.dbosStatus === "ERROR") {
    try {
      await client.retrieveWorkflow(runId).getResult();
    } catch (error) {
      return { ...stored, error: error instanceof Error ? error.message : String(error), waitingFor: [] };
    }
  }
  if (run.status === "waiting") {
    const questions = await waitingQuestions(client, runId);
    return { ...stored, waitingFor: questions.map((question) => howToAnswer(runId, question, questions)) };
  }
  return { ...stored, waitingFor: [] };
}

function storedRun(run: DbosRun): StoredRun {
  return {
    runId: run.runId,
    store: "dbos",
    status: run.status,
    backendStatus: run.dbosStatus,
    ...(run.program === undefined ? {} : { program: run.program }),
    ...(run.source === undefined ? {} : { source: run.source }),
    startedAt: run.startedAt,
    ...(run.updatedAt === undefined ? {} : { updatedAt: run.updatedAt }),
    steps: run.steps,
    tokens: run.usage.reduce((sum, usage) => sum + totalTokens(usage), 0),
    cost: run.cost,
    ...(run.version === undefined ? {} : { version: run.version }),
    ...(run.queue === undefined ? {} : { queue: run.queue }),
    ...(run.worker === undefined ? {} : { worker: run.worker }),
  };
}

function storedStep(step: DbosStep): StoredStep {
  const line = /@(\d+):\d+#\d+$/.exec(step.key)?.[1];
  return {
    key: step.key,
    line: line === undefined ? null : Number(line),
    kind: step.kind,
    status: step.reused ? "reused" : "finished",
    fingerprint: null,
    tokens: step.usage.reduce((sum, usage) => sum + totalTokens(usage), 0),
    cost: estimateCost(step.usage) ?? null,
    value: typeof step.value === "string" ? step.value : JSON.stringify(step.value ?? null),
    ...(step.reason === undefined ? {} : { reason: step.reason }),
    workflow: step.workflowId,
  };
}

function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}
