/**
 * A failure inside the compiler, never the program's fault: it names the file being compiled so
 * the report can say what to send with a bug report. User-facing errors pass through unchanged.
 */
import { UsageError } from "../errors.js";
import { internalErrorText } from "./messages.js";

export class CompilerBug extends Error {
  constructor(
    /** The `.prose` file being compiled, as the user named it. */
    readonly file: string,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** Runs a phase of compiling `file`: an unexpected exception becomes a CompilerBug naming it. */
export function blameCompiler<T>(file: string, phase: () => T): T {
  try {
    const result = phase();
    return result instanceof Promise
      ? (result.catch((error: unknown) => Promise.reject(asBug(file, error))) as T)
      : result;
  } catch (error) {
    throw asBug(file, error);
  }
}

function asBug(file: string, error: unknown): unknown {
  return error instanceof CompilerBug || error instanceof UsageError ? error : new CompilerBug(file, error);
}

/** What the CLI prints for an exception nothing expected (exit 3): that it is prosec's bug, and what to send. */
export function internalErrorReport(error: unknown): string {
  return internalErrorText(
    error instanceof Error ? error.message : String(error),
    error instanceof CompilerBug ? error.file : undefined,
  );
}
