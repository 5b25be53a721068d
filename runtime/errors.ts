import type { Question, Site } from "./types.js";

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
  override readonly name: string = "ProseError";
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
  const where =
    details.file === undefined
      ? ""
      : details.at === undefined
        ? `${details.file}: `
        : `${details.file}:${details.at.line}:${details.at.column}: `;
  const session = details.session === undefined ? "" : ` (session "${details.session}")`;
  return `${where}${reason}${session}`;
}

/**
 * A durable run's saved state cannot be used, so nothing ran: a damaged journal line, a missing or
 * damaged run.json, a folder held by a live process, steps recorded in a scheme this prosec does not
 * replay. The message names the file and says what the user can do.
 */
export class RunStateError extends ProseError {}

/** The error codes that say the machine failed the run, not prosec or the program. */
const ENVIRONMENT_CODES: ReadonlySet<string> = new Set([
  "ENOSPC",
  "EDQUOT",
  "EROFS",
  "EIO",
  "EACCES",
  "EPERM",
  "EFBIG",
]);

const CODE_WORDS: { readonly [code: string]: string } = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is used up",
  EROFS: "the file system is read-only",
  EIO: "an input/output error of the device",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EFBIG: "the file would exceed the size limit",
};

/** What fixes each failure: a read-only folder wants no free space, nor a full disk write access. */
const REMEDIES: { readonly [code: string]: string } = {
  ENOSPC: "free space on the device",
  EDQUOT: "free space within the quota",
  EFBIG: "free space, or raise the file size limit (ulimit -f)",
  EROFS: "remount the file system writable, or work in a folder on another one",
  EIO: "check the device (dmesg)",
  EACCES: "make the folder writable for this user, or work in one that is",
  EPERM: "make the folder writable for this user, or work in one that is",
};

/** Whether `error` is a file-system failure of the machine (a full disk, a read-only folder, an I/O error, a denied permission). */
export function isEnvironmentFailure(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return error instanceof Error && typeof code === "string" && ENVIRONMENT_CODES.has(code);
}

/**
 * The machine failed a durable run's state (a full disk, a read-only folder, an I/O error, a denied
 * permission): the run stops where its journal's last complete record ends, and resumes from there
 * once the cause is fixed. Not prosec's bug, not the program's error: a program's `catch:` does not
 * handle it, and the CLI exits with `EXIT.environment`.
 */
export class EnvironmentError extends ProseError {
  override readonly name: string = "EnvironmentError";

  constructor(
    readonly code: string,
    readonly path: string | undefined,
    reason: string,
    cause?: unknown,
  ) {
    super(reason, cause === undefined ? {} : { cause });
  }

  /**
   * `error` (one `isEnvironmentFailure` accepts) while doing `what` (\`writing journal.jsonl\`);
   * `then` is how to go on once fixed (a run resumes; a command is run again).
   */
  static of(error: NodeJS.ErrnoException & { dest?: string }, what: string, then = "resume"): EnvironmentError {
    const code = error.code!;
    const path = error.path;
    // A copy or a rename names both ends: either may be the one refused.
    const where = path === undefined ? "" : error.dest === undefined ? ` (${path})` : ` (${path} → ${error.dest})`;
    return new EnvironmentError(
      code,
      path,
      `${what} failed: ${CODE_WORDS[code] ?? code} (${code})${where}. This is a problem of the machine prosec runs on, not of prosec or the program: ${REMEDIES[code] ?? "fix it"}, then ${then}.`,
      error,
    );
  }
}

/** `error` as an EnvironmentError when the machine caused it; anything else unchanged. */
export function asEnvironmentError(error: unknown, what: string, then?: string): unknown {
  if (error instanceof EnvironmentError || !isEnvironmentFailure(error)) return error;
  return EnvironmentError.of(error, what, then);
}

/**
 * A model's answer the step could not use, after what the run does about it (re-asks, continuations):
 * a refusal, an answer that failed validation. A step's error has it as its cause; a recorded failure
 * says which (failed-steps.ts).
 */
export class AnswerFailure extends Error {
  override readonly name: string = "AnswerFailure";

  constructor(
    readonly problem: "refusal" | "invalid-answer",
    message: string,
  ) {
    super(message);
  }
}

/** A failure that comes from the run being cancelled (a lost race, Ctrl-C, the deadline). */
export function isAbortError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === "AbortError" || error.name === "APIUserAbortError" || error.constructor.name === "APIUserAbortError"
  );
}

/** A short human-readable description of any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof ProseError) return error.reason;
  if (error instanceof Error) return NO_CREDENTIALS.test(error.message) ? NO_CREDENTIALS_REASON : error.message;
  return String(error);
}

/**
 * The SDK's words for a client with no key, no token and no profile, which name its constructor's
 * options; an app's run (the CLI checks this before a run starts) says what to set instead.
 */
const NO_CREDENTIALS = /^Could not resolve authentication method\b/;
const NO_CREDENTIALS_REASON =
  "no API key: set ANTHROPIC_API_KEY, or pass `apiKey` in the run options (ANTHROPIC_BASE_URL alone reaches a compatible server that takes none)";

/**
 * The run reached mid-program inputs that nobody answered and nobody can be asked (off a terminal,
 * no `onInput`): it stops, not failed, with its state saved, until they are answered. A program's
 * `try`/`catch` does not catch it, and sibling `parallel` branches finish before it is raised.
 */
export class WaitingForInput extends ProseError {
  override readonly name: string = "WaitingForInput";

  constructor(
    readonly questions: readonly Question[],
    file?: string,
  ) {
    super(
      `The run is waiting for input: ${questions.map((question) => `"${question.name}" (${question.prompt})`).join(", ")}.`,
      { ...(file === undefined ? {} : { file }), at: questions[0]!.at },
    );
  }

  /** The same wait, its keys under `prefix` (a called program's steps are recorded under its call). */
  prefixed(prefix: string): WaitingForInput {
    return new WaitingForInput(
      this.questions.map((question) => ({ ...question, key: prefix + question.key })),
      this.file,
    );
  }

  /** Both waits as one, in the order their branches were written. */
  static merge(first: WaitingForInput, second: WaitingForInput): WaitingForInput {
    return new WaitingForInput([...first.questions, ...second.questions], first.file);
  }
}
