/**
 * What `prosec submit` records on a run's workflow as DBOS workflow attributes: the program's name, the
 * file it was submitted from and its queue. `prosec runs` and `prosec view` show the program; `prosec
 * run --resume` puts a cancelled run back on its queue (DBOS forgets a cancelled workflow's queue).
 * Runs submitted before prosec recorded them have none.
 */
import type { WorkflowStatus } from "@dbos-inc/dbos-sdk";

export interface RunAttributes {
  readonly program: string;
  readonly source: string;
  readonly queue: string;
}

/** The queue `prosec submit` and `prosec worker` use when given none. */
export const DEFAULT_QUEUE = "prosec";

/** The attributes a run's workflow carries; each one only when it is there and a string. */
export function runAttributes(status: WorkflowStatus): Partial<RunAttributes> {
  const attributes = status.attributes ?? {};
  const text = (name: keyof RunAttributes): { [name: string]: string } =>
    typeof attributes[name] === "string" ? { [name]: attributes[name] } : {};
  return { ...text("program"), ...text("source"), ...text("queue") };
}
