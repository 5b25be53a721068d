/**
 * `DBOS_SYSTEM_DATABASE_URL`, checked where it is read: a value that is not a PostgreSQL URL is the
 * user's mistake, said in one line, not a crash deep in a connection.
 */
import { UsageError } from "../errors.js";

const VARIABLE = "DBOS_SYSTEM_DATABASE_URL";

/** The database DBOS keeps runs in, or undefined when none is configured. */
export function configuredDatabaseUrl(): string | undefined {
  const url = process.env[VARIABLE];
  if (url === undefined || url === "") return undefined;
  if (!URL.canParse(url) || !["postgres:", "postgresql:"].includes(new URL(url).protocol))
    throw new UsageError(`${VARIABLE} is not a postgres:// URL`);
  return url;
}

/** The database DBOS keeps runs in, which the command needs. */
export function systemDatabaseUrl(): string {
  const url = configuredDatabaseUrl();
  if (url === undefined)
    throw new UsageError(
      `set ${VARIABLE} to the PostgreSQL database DBOS keeps runs in, e.g. postgresql://postgres@127.0.0.1:5432/prosec (see docs/dbos.md)`,
    );
  return url;
}
