/**
 * `prosec worker`, `submit`, `status`, `result` and `migrate`: runs on DBOS, across processes and
 * machines that share one PostgreSQL database. Loaded only when one of them runs (DBOS, pg and the
 * TypeScript compiler are not for `check` and `build` to pay for).
 */
import { hostname } from "node:os";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { loadChecked } from "../run/load-checked.js";
import { missingInputs, missingParameters, parseInputArguments } from "../run/inputs.js";
import { maskedUrl } from "../masked-url.js";
import { terminalText } from "../printable.js";
import { DatabaseUnreachable } from "../errors.js";
import { checkReachable, liveWorkers, migrate } from "../worker/database.js";
import { systemDatabaseUrl } from "../worker/database-url.js";
import { howToAnswer, waitingQuestions } from "../runs/dbos-control.js";
import {
  awaitResult,
  reportPending,
  RESULT_POLL_MS,
  ResultWait,
  whyWaiting,
  type ResultArguments,
} from "../runs/dbos-result.js";
import { answerName, APPROVAL_PREFIX, newRunId } from "../../runtime/stored-runs.js";
import { readRunLines } from "../worker/run-lines.js";
import { submitRuns, type RunToSubmit } from "../worker/submit-runs.js";
import { findRun, withClient } from "../worker/client.js";
import { jsonText } from "../json-text.js";

export interface WorkerArguments {
  readonly file: string;
  readonly queue: string;
  readonly concurrency: number;
  readonly id?: string;
  readonly adoptAfter: number;
  readonly outageLimit: number;
  readonly strict: boolean;
  /** The OTLP/HTTP collector to send spans to (src/run/tracing.ts). */
  readonly otel?: string;
}

export interface SubmitArguments {
  readonly file: string;
  readonly input: readonly string[];
  /** A JSON-lines file: one run a line, each line an object of its inputs. */
  readonly inputs?: string;
  readonly queue: string;
  readonly id?: string;
  readonly strict: boolean;
}

const EXECUTOR_ID = /^[\w.-]{1,100}$/;
const RUN_ID = /^[\w.-]{1,100}$/;

/** Serves until SIGINT or SIGTERM; the exit code. */
export async function runWorker(argv: WorkerArguments): Promise<ExitCode> {
  if (!Number.isInteger(argv.concurrency) || argv.concurrency < 1)
    throw new UsageError("--concurrency takes a whole number of at least 1");
  if (!(argv.adoptAfter > 0)) throw new UsageError("--adopt-after takes a number of seconds above 0");
  if (!(argv.outageLimit > 0)) throw new UsageError("--outage-limit takes a number of seconds above 0");
  const executorId = argv.id ?? hostname();
  if (!EXECUTOR_ID.test(executorId))
    throw new UsageError(`--id ${executorId}: use letters, digits, '.', '_' and '-' (at most 100)`);
  const databaseUrl = systemDatabaseUrl();
  const cwd = process.cwd();
  const loaded = await loadChecked(argv.file, { cwd, strict: argv.strict });
  if (loaded === undefined) return EXIT.failed;
  // Loaded here, not with the module: \`status\`, \`result\` and \`submit\` share it and never run a program.
  const [{ modelAccessConfigured, noCredentialsMessage }, { startWorker }, { endTracing }] = await Promise.all([
    import("../run/credentials.js"),
    import("../worker/worker.js"),
    import("../run/tracing.js"),
  ]);
  if (!(await modelAccessConfigured())) throw new UsageError(noCredentialsMessage);
  await checkReachable(databaseUrl);
  // Listened for before the worker starts: a signal during its start stops it once started.
  const signalled = new Promise<undefined>((resolve) => {
    process.once("SIGINT", () => resolve(undefined));
    process.once("SIGTERM", () => resolve(undefined));
  });
  const worker = await startWorker({
    program: loaded.module,
    programName: loaded.module.default.name,
    version: loaded.codeHash,
    databaseUrl,
    executorId,
    queue: argv.queue,
    concurrency: argv.concurrency,
    adoptAfterMs: argv.adoptAfter * 1000,
    outageLimitMs: argv.outageLimit * 1000,
    cwd,
    // Its lines quote runs' errors and MCP servers' stderr: no escape sequence reaches a terminal.
    log: (line) => process.stderr.write(terminalText(`${line}\n`)),
  });
  const gaveUp = await Promise.race([signalled, worker.gaveUp]);
  if (gaveUp !== undefined) {
    process.stderr.write(
      `prosec: ${gaveUp}; stopping. Runs in flight are recovered when this worker starts again, or adopted by another one\n`,
    );
    // DBOS retries its queries until the database answers, so a graceful shutdown could wait forever.
    await Promise.race([worker.stop().catch(() => undefined), delay(2000)]);
    worker.stopNow();
    await endTracing();
    process.exit(EXIT.network);
  }
  process.stderr.write("stopping: runs in flight stop at their next turn or tool call and go back on the queue\n");
  // A second signal does not wait for the stop: the runs in flight are recovered or adopted as after a crash.
  const again = (): never => {
    worker.stopNow();
    process.exit(EXIT.interrupted);
  };
  process.once("SIGINT", again);
  process.once("SIGTERM", again);
  // DBOS retries its queries until the database answers: during an outage the stop waits at most --outage-limit.
  const stoppedInTime = await Promise.race([
    worker.stop().then(
      () => true,
      () => true,
    ),
    delay(argv.outageLimit * 1000).then(() => false),
  ]);
  if (stoppedInTime) return EXIT.ok;
  process.stderr.write(
    `prosec: the database did not answer within --outage-limit (${argv.outageLimit} s) while stopping; stopped without it. Runs in flight are recovered when this worker starts again, or adopted by another one\n`,
  );
  worker.stopNow();
  await endTracing();
  process.exit(EXIT.network);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Enqueues a run, or one per line of `--inputs`; prints their ids on stdout, one a line. */
export async function submitRun(argv: SubmitArguments): Promise<ExitCode> {
  if (argv.id !== undefined && !RUN_ID.test(argv.id))
    throw new UsageError(`--id ${argv.id}: use letters, digits, '.', '_' and '-' (at most 100)`);
  const databaseUrl = systemDatabaseUrl();
  const loaded = await loadChecked(argv.file, { cwd: process.cwd(), strict: argv.strict });
  if (loaded === undefined) return EXIT.failed;
  const program = loaded.module.default;
  const shared = parseInputArguments(argv.input, program);
  let runs: RunToSubmit[];
  if (argv.inputs === undefined) {
    const missing = missingParameters(program, shared);
    if (missing.length > 0) throw missingInputs(missing);
    runs = [{ id: argv.id ?? newRunId(new Date()), inputs: shared }];
  } else {
    // One base id for the file, numbered by line: ids that cannot collide, and say which line a run came from.
    const base = argv.id ?? newRunId(new Date());
    runs = readRunLines(argv.inputs, program).map((line) => {
      const inputs = { ...shared, ...line.inputs };
      const missing = missingParameters(program, inputs);
      if (missing.length > 0)
        throw new UsageError(
          `${argv.inputs}:${line.number}: ${missingInputs(missing).message} (give it on the line, or to every run with --input)`,
        );
      return { id: `${base}-${line.number}`, inputs };
    });
  }
  await checkReachable(databaseUrl);
  const ids = await submitRuns(runs, {
    databaseUrl,
    queue: argv.queue,
    version: loaded.codeHash,
    program: { name: program.name, source: argv.file },
  });
  process.stdout.write(`${ids.join("\n")}\n`);
  return EXIT.ok;
}

export async function showStatus(argv: ResultArguments): Promise<ExitCode> {
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
        ...(question.source === undefined ? {} : { program: question.source }),
        key: question.key,
        ...(question.name.startsWith(APPROVAL_PREFIX) ? {} : { answer: answerName(question, questions) }),
      })),
      version: status.applicationVersion ?? null,
      queue,
      // A queued run is held by no worker, whichever ran it last (before it was put back on the queue).
      worker: status.status === "ENQUEUED" || !status.executorId ? null : status.executorId,
      createdAt: new Date(status.createdAt).toISOString(),
      updatedAt: status.updatedAt === undefined ? null : new Date(status.updatedAt).toISOString(),
      steps: steps.length,
      branches: { total: branches.length, finished: done },
      workers,
      waiting:
        status.status === "ENQUEUED" && queue !== null ? whyWaiting(status.applicationVersion, queue, workers) : null,
    };
    if (argv.json) {
      process.stdout.write(`${jsonText(summary)}\n`);
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
        ...questions.map((question) => `waiting  ${howToAnswer(summary.runId, question, questions)}`),
        ...(summary.waiting === null ? [] : [`waiting  ${summary.waiting}`]),
      ];
      process.stdout.write(terminalText(`${lines.join("\n")}\n`));
    }
    return EXIT.ok;
  });
}

/**
 * Waits for the run (up to `--timeout` seconds) and prints its outputs. The deadline is kept here,
 * whatever the database does: DBOS's client ignores the timeout it is given, and retries a query
 * for as long as the database is away.
 */
export async function showResult(argv: ResultArguments): Promise<ExitCode> {
  const { timeout } = argv;
  if (timeout !== undefined && !(timeout >= 0)) throw new UsageError("--timeout takes a number of seconds, 0 or more");
  const url = systemDatabaseUrl();
  if (timeout === undefined) {
    // Without --timeout, an outage is waited through, one that began before `result` started too.
    await reachableBefore(url, Infinity, Infinity, () =>
      process.stderr.write(
        `prosec: cannot reach the database at ${maskedUrl(url)} (DBOS_SYSTEM_DATABASE_URL); waiting for it (Ctrl-C to stop, or use --timeout)\n`,
      ),
    );
    return withClient(url, (client) => awaitResult(client, argv, new ResultWait(Infinity)));
  }
  const wait = new ResultWait(Date.now() + timeout * 1000);
  const finished = (async () => {
    await reachableBefore(url, wait.deadline, timeout);
    return withClient(url, (client) => awaitResult(client, argv, wait));
  })();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    finished,
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeout * 1000 + GRACE_MS))),
  ]);
  clearTimeout(timer);
  if (outcome !== undefined) return outcome;
  let code: ExitCode;
  if (wait.status === undefined) {
    process.stderr.write(
      `prosec: cannot reach the database at ${maskedUrl(url)} (DBOS_SYSTEM_DATABASE_URL) (tried for ${timeout} s)\n`,
    );
    code = EXIT.network;
  } else {
    reportPending(argv, wait.status, wait.silentForMs());
    code = EXIT.pending;
  }
  // The wait for the database goes on inside DBOS's client, which nothing can stop: leave it.
  process.exit(code);
}

/**
 * How long past the deadline `result` lets a query in flight come back before it stops waiting for
 * the database (a `--timeout 0` still reads the run's status once).
 */
const GRACE_MS = 1000;

/** Resolves once the database at `url` answers; tries again until `deadline` (the caller's race ends it). */
async function reachableBefore(
  url: string,
  deadline: number,
  seconds: number,
  onFirstMiss?: () => void,
): Promise<void> {
  for (let missed = false; ; missed = true) {
    try {
      return await checkReachable(url);
    } catch (error) {
      if (!(error instanceof DatabaseUnreachable)) throw error;
      if (!missed) onFirstMiss?.();
      if (Date.now() >= deadline) throw new DatabaseUnreachable(`${error.message} (tried for ${seconds} s)`);
      await new Promise((resolve) => setTimeout(resolve, Math.min(RESULT_POLL_MS, Math.max(0, deadline - Date.now()))));
    }
  }
}

export async function migrateDatabase(): Promise<ExitCode> {
  const url = systemDatabaseUrl();
  await checkReachable(url);
  await migrate(url);
  process.stderr.write("the system database is ready\n");
  return EXIT.ok;
}
