/**
 * Durability on DBOS Transact: a run is a workflow, every step a checkpoint named by its site (a
 * session's model turns and tool calls too, session-steps.ts), and every concurrent branch a child
 * workflow whose id is the run id plus the branch's site.
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
import { StepMismatch } from "../durable/durability.js";
import type { DurableStep, Question, RecordedStep, SessionSteps, StepAddress, StepStore, Value } from "../types.js";
import { BranchRegistry } from "./branch-registry.js";
import { checkpoint, type RunStop } from "./checkpoint.js";
import { DbosSessionSteps } from "./session-steps.js";

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

/** The event a workflow waiting for input publishes (and clears with `null` once answered). */
export const WAITING_EVENT = "prosec.waiting";

export interface WaitingEvent {
  readonly name: string;
  readonly prompt: string;
  /** The input step's site: the topic its answer is sent on. */
  readonly key: string;
  readonly line: number;
  readonly column: number;
  /** The name of the program that asks it (a called program's own): `prosec answer RUN gate.confirm=...`. */
  readonly program?: string;
  /** That program's source path, which `line` is in. */
  readonly source?: string;
  /** The workflow that waits: the run, or the branch of it the input stands in. */
  readonly workflowId: string;
}

/** What `prosec answer` sends (a record, so that an answer is never mistaken for `recv`'s timeout). */
export interface AnswerMessage {
  readonly value: Value;
}

/** How long one `recv` waits before the loop asks again (DBOS's default is 60 s). */
const RECV_WINDOW_SECONDS = 3600;

/** Workflow statuses that no longer change. */
export const FINISHED: ReadonlySet<string> = new Set([
  "SUCCESS",
  "ERROR",
  "CANCELLED",
  "MAX_RECOVERY_ATTEMPTS_EXCEEDED",
]);

/** Finished statuses of a workflow that was stopped, not ended by its own code: DBOS resumes those. */
const STOPPED: ReadonlySet<string> = new Set(["CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

export class DbosDurability implements StepStore {
  /** The names of the steps earlier executions checkpointed, by workflow (see `recorded`). */
  private readonly earlierSteps = new Map<string, Promise<readonly string[]>>();

  constructor(
    private readonly runId: string,
    private readonly backend: DbosBackend,
    /** Whether this execution of the run was stopped (see workflows.ts, RunStops). */
    private readonly stop: RunStop,
  ) {}

  /** A checkpoint named by the step's site. */
  async step({ site, kind }: StepAddress, execute: () => Promise<RecordedStep>): Promise<DurableStep> {
    const { value: step, ran } = await checkpoint(
      site,
      kind === "session" ? await inWorkflow(execute) : execute,
      this.stop,
    );
    if (!ran && step.kind !== kind) throw new StepMismatch(site, step.kind);
    return { step, replayed: !ran };
  }

  /**
   * Whether an earlier execution of this workflow checkpointed the step at `site` (or a turn of it): DBOS
   * replays a workflow's steps by their order, so a cancelled branch must replay those before it stops.
   * The workflow's steps are read once per execution: what this execution adds is not from before.
   */
  async recorded(site: string): Promise<boolean> {
    const id = DBOS.workflowID;
    if (id === undefined) return false;
    let names = this.earlierSteps.get(id);
    if (names === undefined) {
      names = this.backend.client
        .listWorkflowSteps(id)
        .then((steps) => (steps ?? []).map((step) => step.name))
        .catch(() => []);
      this.earlierSteps.set(id, names);
    }
    return (await names).some((name) => name === site || name.startsWith(`${site} `));
  }

  sessionSteps(site: string, signal?: AbortSignal): SessionSteps {
    return new DbosSessionSteps(
      site,
      this.stop,
      async (question) => {
        // A wait for approval has no timeout: the run waits until a person decides (or cancels it).
        const answer = await this.awaitAnswer(question.key, question, undefined);
        return answer ?? { value: null };
      },
      signal,
    );
  }

  branch<T extends Value>(site: string, body: () => Promise<T>): Promise<T> {
    const id = this.runId + site;
    const { branches } = this.backend;
    const result = branches.offer(id, body);
    // Called before any await: DBOS numbers the child's start in the parent's step sequence now.
    const started = DBOS.startWorkflow(this.backend.branchWorkflow, { workflowID: id })();
    return started.then((handle) => {
      if ("workflowPromise" in handle) return result;
      // A run forked from another (`prosec run --resume ID --from LINE`) replays the branch the other
      // run finished before the fork: DBOS hands back that run's child, whose outcome is the branch's.
      if (handle.workflowID !== id) branches.forget(id);
      return this.settle(handle.workflowID, result);
    }) as Promise<T>;
  }

  scope(): string {
    return DBOS.workflowID ?? "";
  }

  /**
   * Waits in the database: the question is published as this workflow's `prosec.waiting` event
   * (DBOS has no WAITING status; `prosec status` reads it), and the answer arrives as a message on
   * the topic of the input's site (`prosec answer` sends it). `recv` gives up after its timeout, so
   * the wait is a loop of them, each one checkpointed; a cancelled run stops in `recv`.
   */
  async awaitAnswer(
    key: string,
    question: Question,
    timeoutSeconds: number | undefined,
  ): Promise<AnswerMessage | undefined> {
    await DBOS.setEvent<WaitingEvent>(WAITING_EVENT, {
      name: question.name,
      prompt: question.prompt,
      key,
      line: question.at.line,
      column: question.at.column,
      ...(question.program === undefined ? {} : { program: question.program }),
      ...(question.source === undefined ? {} : { source: question.source }),
      workflowId: DBOS.workflowID!,
    });
    let message: AnswerMessage | null;
    if (timeoutSeconds !== undefined) {
      // One recv: DBOS keeps its deadline durably, so a restarted worker does not wait longer.
      message = await DBOS.recv<AnswerMessage>(key, { timeoutSeconds });
    } else {
      do message = await DBOS.recv<AnswerMessage>(key, { timeoutSeconds: RECV_WINDOW_SECONDS });
      while (message === null);
    }
    await DBOS.setEvent<WaitingEvent | null>(WAITING_EVENT, null);
    return message ?? undefined;
  }

  /** The outcome of a child workflow that an earlier execution of the run had started. */
  private async settle(id: string, result: Promise<Value>): Promise<Value> {
    const { client, branches, pollMs } = this.backend;
    let status = await client.getWorkflow(id);
    // A branch stopped with its run (`prosec cancel` cancels the branches too) goes on with the run
    // when the run is resumed (`prosec run --resume`): the run is running again, here.
    const stopped = status !== undefined && STOPPED.has(status.status);
    if (status !== undefined && (stopped || (!FINISHED.has(status.status) && !this.runsHere(id, status)))) {
      await client.resumeWorkflow(id, { queueName: this.backend.ownQueue });
      if (stopped) status = await client.getWorkflow(id);
    }
    for (;;) {
      if (status !== undefined && FINISHED.has(status.status)) {
        branches.forget(id);
        return (await client.retrieveWorkflow<Value>(id).getResult()) ?? null;
      }
      const outcome = await Promise.race([
        result.then(
          () => "done" as const,
          () => "done" as const,
        ),
        delay(pollMs),
      ]);
      if (outcome === "done") return result;
      status = await client.getWorkflow(id);
    }
  }

  private runsHere(id: string, status: WorkflowStatus): boolean {
    return this.backend.branches.claimed(id) || (status.status === "PENDING" && status.executorId === DBOS.executorID);
  }
}

/**
 * A session's turns and tool calls are checkpoints of their own (session-steps.ts), and DBOS steps do
 * not nest: the session runs in workflow code, and its step checkpoints only the outcome.
 */
async function inWorkflow(execute: () => Promise<RecordedStep>): Promise<() => Promise<RecordedStep>> {
  const outcome = await execute();
  return () => Promise.resolve(outcome);
}

function delay(ms: number): Promise<"waiting"> {
  return new Promise((resolve) => setTimeout(() => resolve("waiting"), ms));
}
