/**
 * A command used wrongly: arguments, options, a file that is not a program, an unknown run id. Every
 * command reports it as one line and exits with `EXIT.usage` (exit-codes.ts), never with a stack trace.
 */
export class UsageError extends Error {}

/**
 * The database's DBOS tables are not the shape this prosec expects (PostgreSQL's class 42 errors: a
 * missing column, a wrong type): said in one line with its fix, and exits with `EXIT.runStateUnusable`.
 */
export class DatabaseMismatch extends Error {}

/** The database is unreachable or refuses us: said once, plainly, instead of DBOS retrying forever. */
export class DatabaseUnreachable extends Error {}

/**
 * The database holds no DBOS runs at all: it does not exist yet, or DBOS's tables are not in it (no
 * worker, `submit` or `prosec migrate` has used it). Said in one line, not as PostgreSQL's error.
 */
export class NoRunsDatabase extends Error {}
