/**
 * Many runs of one program onto a DBOS queue from one process: the program is compiled once (its
 * version is the caller's), and the runs are enqueued side by side over one client. `prosec submit
 * --inputs runs.jsonl` uses it; so can an application that submits runs of its own.
 */
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import pMap from "p-map";
import { RUN_WORKFLOW, type Inputs } from "../../runtime/dbos-runs.js";
import { newRunId } from "../../runtime/stored-runs.js";
import { APPLICATION, migrate } from "./database.js";
import { dbosLogger } from "./dbos-logger.js";
import { DEFAULT_QUEUE, type RunAttributes } from "./run-attributes.js";
import { terminalText } from "../printable.js";

export interface RunToSubmit {
  /** The run's id (default: a new one). Submitting an id again returns the run already there. */
  readonly id?: string;
  readonly inputs: Inputs;
}

export interface SubmitRunsOptions {
  /** The PostgreSQL database DBOS keeps runs in (DBOS_SYSTEM_DATABASE_URL). */
  readonly databaseUrl: string;
  /** The queue the program's workers serve (default `prosec`). */
  readonly queue?: string;
  /** The compiled program's version (its code hash): workers take only runs of the program they compiled. */
  readonly version: string;
  /** The program's name and the file it came from, recorded on each run for `prosec runs` and `prosec view`. */
  readonly program?: { readonly name: string; readonly source: string };
  /** Enqueues at once (default 16). */
  readonly concurrency?: number;
}

/** Enqueues every run; their ids, in the order given. Creates or migrates the database first. */
export async function submitRuns(runs: readonly RunToSubmit[], options: SubmitRunsOptions): Promise<string[]> {
  await migrate(options.databaseUrl);
  const client = await DBOSClient.create({
    systemDatabaseUrl: options.databaseUrl,
    applicationName: APPLICATION,
    logger: dbosLogger(process.env["PROSEC_DBOS_LOG_LEVEL"] ?? "warn", (line) =>
      process.stderr.write(terminalText(`${line}\n`)),
    ),
  });
  const now = new Date();
  const queueName = options.queue ?? DEFAULT_QUEUE;
  const attributes: Partial<RunAttributes> = {
    ...(options.program === undefined ? {} : { program: options.program.name, source: options.program.source }),
    queue: queueName,
  };
  try {
    return await pMap(
      runs,
      async (run) => {
        const runId = run.id ?? newRunId(now);
        // The workflow id is the run id: submitting the same id again returns the run already there.
        await client.enqueue(
          {
            queueName,
            workflowName: RUN_WORKFLOW,
            workflowID: runId,
            appVersion: options.version,
            attributes,
          },
          run.inputs,
        );
        return runId;
      },
      { concurrency: options.concurrency ?? 16 },
    );
  } finally {
    await client.destroy();
  }
}
