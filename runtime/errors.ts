import type { Site } from "./types.js";

/** Where a `ProseError` happened: the program file, the `.prose` position and the session, when known. */
export interface ProseErrorDetails {
  readonly file?: string;
  readonly at?: Site;
  /** The label of the session (or judgment) that failed. */
  readonly session?: string;
  readonly cause?: unknown;
}

/**
 * The one error class of the runtime. Its message starts with `file:line:column` so a terminal or an
 * editor can jump to the `.prose` line; the underlying failure (an SDK error, a tool error) is `cause`.
 */
export class ProseError extends Error {
  override readonly name = "ProseError";
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly session: string | undefined;
  /** The message without the location prefix (what `throw "message"` said). */
  readonly reason: string;

  constructor(reason: string, details: ProseErrorDetails = {}) {
    super(formatMessage(reason, details), details.cause === undefined ? undefined : { cause: details.cause });
    this.reason = reason;
    this.file = details.file;
    this.line = details.at?.line;
    this.column = details.at?.column;
    this.session = details.session;
  }
}

function formatMessage(reason: string, details: ProseErrorDetails): string {
  const where = details.file === undefined ? "" : details.at === undefined ? `${details.file}: ` : `${details.file}:${details.at.line}:${details.at.column}: `;
  const session = details.session === undefined ? "" : ` (session "${details.session}")`;
  return `${where}${reason}${session}`;
}

/**
 * A durable run's saved state cannot be used, so nothing ran: a damaged journal line, a missing or
 * damaged run.json, a folder held by a live process, steps recorded in a scheme this prosec does not
 * replay. The message names the file and says what the user can do.
 */
export class RunStateError extends ProseError {}

/** A failure that comes from the run being cancelled (a lost race, Ctrl-C, the deadline). */
export function isAbortError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === "AbortError" || error.name === "APIUserAbortError" || error.constructor.name === "APIUserAbortError";
}

/** A short human-readable description of any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof ProseError) return error.reason;
  if (error instanceof Error) return error.message;
  return String(error);
}
