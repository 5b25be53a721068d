/**
 * A DBOS client for one command: opened after a fast reachability check, closed after, with the
 * database's absence said in one line (database.ts) rather than as PostgreSQL's error.
 */
import { DBOSClient, type WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { RUN_WORKFLOW } from "../../runtime/dbos-runs.js";
import { UsageError } from "../errors.js";
import { APPLICATION, checkReachable, explainMissing } from "./database.js";
import { dbosLogger } from "./dbos-logger.js";
import { terminalText } from "../printable.js";

// DBOS's client runs overlapping queries on one pg connection, which pg 8 reports with a
// deprecation warning on every `result`: noise for prosec's users, who can do nothing about it.
process.noDeprecation = true;

/**
 * `body` with a client of the database at `url`: unreachable is `DatabaseUnreachable`, a database
 * that does not exist or has no DBOS tables is `NoRunsDatabase`.
 */
export async function withClient<T>(url: string, body: (client: DBOSClient) => Promise<T>): Promise<T> {
  await checkReachable(url);
  const client = await DBOSClient.create({
    systemDatabaseUrl: url,
    applicationName: APPLICATION,
    logger: dbosLogger(process.env["PROSEC_DBOS_LOG_LEVEL"] ?? "warn", (line) =>
      process.stderr.write(terminalText(`${line}\n`)),
    ),
  });
  try {
    return await body(client);
  } catch (error) {
    throw explainMissing(error, url);
  } finally {
    await client.destroy();
  }
}

export async function findRun(client: DBOSClient, runId: string): Promise<WorkflowStatus> {
  const status = await client.getWorkflow(runId);
  if (status === undefined || status.workflowName !== RUN_WORKFLOW)
    throw new UsageError(`there is no run ${runId} in this database`);
  return status;
}
