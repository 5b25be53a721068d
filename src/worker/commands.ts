/**
 * `prosec worker`, `submit`, `status`, `result` and `migrate`: runs on DBOS, across processes and
 * machines that share one PostgreSQL database. Loaded only when one of them runs (DBOS, pg and the
 * TypeScript compiler are not for `check` and `build` to pay for).
 */
import { hostname } from "node:os";
import { DBOSClient, type WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { RUN_WORKFLOW, type Outputs } from "../../runtime/dbos/workflows.js";
import { newRunId } from "../../runtime/index.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { loadChecked } from "../run/load-checked.js";
import { missingInputs, missingParameters, parseInputArguments } from "../run/inputs.js";
import { printOutputs } from "../run/outputs.js";
import { modelAccessConfigured, noCredentialsMessage } from "../run/credentials.js";
import {
  APPLICATION,
  checkReachable,
  DatabaseUnreachable,
  liveWorkers,
  migrate,
  systemDatabaseUrl,
  type LiveWorker,
} from "./database.js";
import { answerDbosRun, cancelDbosRun, waitingQuestions } from "./control.js";
import { startWorker } from "./worker.js";

// DBOS's client runs overlapping queries on one pg connection, which pg 8 reports with a
// deprecation warning on every `result`: noise for prosec's users, who can do nothing about it.
process.noDeprecation = true;

export interface WorkerArguments {
  readonly file: string;
  readonly queue: string;
  readonly concurrency: number;
  readonly id?: string;
  readonly adoptAfter: number;
  readonly strict: boolean;
}

export interface SubmitArguments {
  readonly file: string;
  readonly input: readonly string[];
  readonly queue: string;
  readonly id?: string;
  readonly strict: boolean;
}

export interface RunIdArguments {
  readonly runId: string;
  readonly json: boolean;
  readonly timeout?: number;
}

const EXECUTOR_ID = /^[\w.-]{1,100}$/;
const RUN_ID = /^[\w.-]{1,100}$/;

/** A command's exit code, with an unreachable database reported as a network failure, not a crash. */
export async function reportingDatabase(command: () => Promise<ExitCode>): Promise<ExitCode> {
  try {
    return await command();
  } catch (error) {
    if (!(error instanceof DatabaseUnreachable)) throw error;
    process.stderr.write(`prosec: ${error.message}\n`);
    return EXIT.network;
  }
}

/** Serves until SIGINT or SIGTERM; the exit code. */
export async function runWorker(argv: WorkerArguments): Promise<ExitCode> {
  if (!Number.isInteger(argv.concurrency) || argv.concurrency < 1)
    throw new UsageError("--concurrency takes a whole number of at least 1");
  if (!(argv.adoptAfter > 0)) throw new UsageError("--adopt-after takes a number of seconds above 0");
  const executorId = argv.id ?? hostname();
  if (!EXECUTOR_ID.test(executorId))
    throw new UsageError(`--id ${executorId}: use letters, digits, '.', '_' and '-' (at most 100)`);
  const databaseUrl = systemDatabaseUrl();
  const cwd = process.cwd();
  const loaded = await loadChecked(argv.file, { cwd, strict: argv.strict });
  if (loaded === undefined) return EXIT.failed;
  if (!(await modelAccessConfigured())) throw new UsageError(noCredentialsMessage);
  await checkReachable(databaseUrl);
  const worker = await startWorker({
    program: loaded.module,
    programName: loaded.module.default.name,
    version: loaded.codeHash,
    databaseUrl,
    executorId,
    queue: argv.queue,
    concurrency: argv.concurrency,
    adoptAfterMs: argv.adoptAfter * 1000,
    cwd,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  process.stderr.write(
    "stopping: runs in flight are recovered when this worker starts again, or adopted by another one\n",
  );
  await worker.stop();
  return EXIT.ok;
}

/** Enqueues a run; prints its id on stdout. */
export async function submitRun(argv: SubmitArguments): Promise<ExitCode> {
  const runId = argv.id ?? newRunId(new Date());
  if (!RUN_ID.test(runId)) throw new UsageError(`--id ${runId}: use letters, digits, '.', '_' and '-' (at most 100)`);
  const databaseUrl = systemDatabaseUrl();
  const loaded = await loadChecked(argv.file, { cwd: process.cwd(), strict: argv.strict });
  if (loaded === undefined) return EXIT.failed;
  const program = loaded.module.default;
  const inputs = parseInputArguments(argv.input, program);
  const missing = missingParameters(program, inputs);
  if (missing.length > 0) throw missingInputs(missing);
  await checkReachable(databaseUrl);
  await migrate(databaseUrl);
  await withClient(databaseUrl, async (client) => {
    // The workflow id is the run id: submitting the same id again returns the run already there.
    await client.enqueue(
      { queueName: argv.queue, workflowName: RUN_WORKFLOW, workflowID: runId, appVersion: loaded.codeHash },
      inputs,
    );
  });
  process.stdout.write(`${runId}\n`);
  return EXIT.ok;
}

export async function showStatus(argv: RunIdArguments): Promise<ExitCode> {
  const url = systemDatabaseUrl();
  return withClient(url, async (client) => {
    const status = await findRun(client, argv.runId);
    const steps = (await client.listWorkflowSteps(argv.runId)) ?? [];
    const branches = await client.listWorkflows({ workflow_id_prefix: `${argv.runId}/` });
    const done = branches.filter((branch) => branch.status === "SUCCESS").length;
    // DBOS has no WAITING status: a PENDING run whose workflows publish a question is waiting.
    const questions = status.status === "PENDING" ? await waitingQuestions(client, argv.runId) : [];
    const queue = status.queueName ?? null;
    const workers = queue === null ? [] : await liveWorkers(url, queue);
    const summary = {
      runId: argv.runId,
      status: questions.length > 0 ? "WAITING" : status.status,
      waitingFor: questions.map((question) => ({
        name: question.name,
        prompt: question.prompt,
        line: question.line,
        column: question.column,
      })),
      version: status.applicationVersion ?? null,
      queue,
      worker: status.executorId ?? null,
      createdAt: new Date(status.createdAt).toISOString(),
      updatedAt: status.updatedAt === undefined ? null : new Date(status.updatedAt).toISOString(),
      steps: steps.length,
      branches: { total: branches.length, finished: done },
      workers,
      waiting:
        status.status === "ENQUEUED" && queue !== null ? whyWaiting(status.applicationVersion, queue, workers) : null,
    };
    if (argv.json) {
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    } else {
      const lines = [
        `run      ${summary.runId}`,
        `status   ${summary.status}`,
        `worker   ${summary.worker ?? "-"}`,
        `queue    ${summary.queue ?? "-"}`,
        `version  ${summary.version ?? "-"}`,
        `created  ${summary.createdAt}`,
        `updated  ${summary.updatedAt ?? "-"}`,
        `steps    ${summary.steps} checkpointed in the run, ${summary.branches.finished} of ${summary.branches.total} branches finished`,
        ...summary.waitingFor.map(
          (question) =>
            `waiting  for input "${question.name}" (${question.prompt}) at line ${question.line}: prosec answer ${summary.runId} ${question.name}=...`,
        ),
        ...(summary.waiting === null ? [] : [`waiting  ${summary.waiting}`]),
      ];
      process.stdout.write(`${lines.join("\n")}\n`);
    }
    return EXIT.ok;
  });
}

/**
 * Why a queued run is not taken, when no live worker can take it: a worker only dequeues runs of the
 * program version it compiled, so after the program changed, old runs wait for a worker of the old one.
 */
function whyWaiting(version: string | undefined, queue: string, workers: readonly LiveWorker[]): string | null {
  if (workers.length === 0)
    return `no worker serves queue "${queue}": start \`prosec worker <program> --queue ${queue}\``;
  if (version === undefined || workers.some((worker) => worker.version === version)) return null;
  const serving = workers.map((worker) => `${worker.id}: ${worker.version ?? "unknown"}`).join(", ");
  return `for a worker of version ${version}: the workers on queue "${queue}" serve other versions (${serving}). The run was submitted with another version of the program (or of prosec); start a worker of that one to run it`;
}

/** DBOS's statuses of a run that has not ended. */
const UNFINISHED: ReadonlySet<WorkflowStatus["status"]> = new Set(["ENQUEUED", "PENDING", "DELAYED"]);

/**
 * Waits for the run (up to `--timeout` seconds) and prints its outputs. The deadline is kept here:
 * DBOS's client ignores the timeout it is given.
 */
export async function showResult(argv: RunIdArguments): Promise<ExitCode> {
  if (argv.timeout !== undefined && !(argv.timeout >= 0))
    throw new UsageError("--timeout takes a number of seconds, 0 or more");
  return withClient(systemDatabaseUrl(), async (client) => {
    const deadline = argv.timeout === undefined ? Infinity : Date.now() + argv.timeout * 1000;
    let status = await findRun(client, argv.runId);
    while (UNFINISHED.has(status.status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(RESULT_POLL_MS, deadline - Date.now())));
      status = (await client.getWorkflow(argv.runId)) ?? status;
    }
    if (UNFINISHED.has(status.status)) {
      if (argv.json)
        process.stdout.write(`${JSON.stringify({ type: "pending", runId: argv.runId, status: status.status })}\n`);
      process.stderr.write(
        `prosec: run ${argv.runId} is still pending (${status.status}) after ${argv.timeout} s; see \`prosec status ${argv.runId}\`\n`,
      );
      return EXIT.pending;
    }
    let outputs: Outputs;
    try {
      outputs = await client.retrieveWorkflow<Outputs>(argv.runId).getResult();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (argv.json) process.stdout.write(`${JSON.stringify({ type: "failed", runId: argv.runId, message })}\n`);
      process.stderr.write(`prosec: run ${argv.runId} failed: ${message}\n`);
      return EXIT.failed;
    }
    printOutputs(outputs, argv.json, argv.runId);
    return EXIT.ok;
  });
}

/** `prosec answer` for a run in the database. */
export async function answerRun(runId: string, answers: { readonly [name: string]: string }): Promise<string[]> {
  return withClient(systemDatabaseUrl(), async (client) => {
    await findRun(client, runId);
    return answerDbosRun(client, runId, answers);
  });
}

/** `prosec cancel` for a run in the database. */
export async function cancelRun(runId: string): Promise<string[]> {
  return withClient(systemDatabaseUrl(), async (client) => {
    await findRun(client, runId);
    return cancelDbosRun(client, runId);
  });
}

const RESULT_POLL_MS = 200;

export async function migrateDatabase(): Promise<ExitCode> {
  const url = systemDatabaseUrl();
  await checkReachable(url);
  await migrate(url);
  process.stderr.write("the system database is ready\n");
  return EXIT.ok;
}

async function withClient<T>(url: string, body: (client: DBOSClient) => Promise<T>): Promise<T> {
  await checkReachable(url);
  const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: APPLICATION });
  try {
    return await body(client);
  } finally {
    await client.destroy();
  }
}

async function findRun(client: DBOSClient, runId: string): Promise<WorkflowStatus> {
  const status = await client.getWorkflow(runId);
  if (status === undefined || status.workflowName !== RUN_WORKFLOW)
    throw new UsageError(`there is no run ${runId} in this database`);
  return status;
}
