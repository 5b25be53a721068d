import { hasErrors, type Diagnostic } from "./diagnostics/diagnostic.js";

/**
 * The one exit-code table for every prosec command. The README's table is this one; a command
 * returns one of these, never a bare number.
 */
export const EXIT = {
  /** The command did what was asked. */
  ok: 0,
  /** The programs have errors, a run failed, a test failed, or `--check` found a difference. */
  failed: 1,
  /** The command line is wrong: arguments, options, an unknown run id, a missing input off a terminal. */
  usage: 2,
  /** A bug in prosec: never expected; the message says so and names the input. */
  internal: 3,
  /** The run is waiting for an input; answer it and resume. */
  waitingForInput: 4,
  /** A budget stopped the run, or refused to start it. */
  budget: 5,
  /** `result --timeout` passed while the run was still pending. */
  pending: 6,
  /**
   * The run's state cannot be used: a damaged journal line, a missing run.json, a folder locked by a
   * live process, a database whose DBOS tables are not the ones this prosec expects.
   */
  runStateUnusable: 7,
  /** The network or a registry failed. */
  network: 8,
  /**
   * The machine failed: the disk is full, a folder is read-only, an input/output error, a permission
   * denied. A run stopped by it keeps its journal up to its last complete record and resumes once the
   * cause is fixed. Also: prosec was never built, or runs on a Node older than its floor (bin/prosec).
   */
  environment: 9,
  /** `prosec eval`: every case stopped on an error (none was scored): the eval measured nothing. */
  evalAllErrors: 10,
  /** Interrupted (Ctrl-C, SIGTERM), or the reader of the output closed it (`prosec check ... | head`). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A program's diagnostics as an exit code: an internal compiler error (P000) is prosec's bug, not the program's. */
export function exitCodeOfDiagnostics(diagnostics: readonly Diagnostic[]): ExitCode {
  if (diagnostics.some((diagnostic) => diagnostic.code === "P000")) return EXIT.internal;
  return hasErrors(diagnostics) ? EXIT.failed : EXIT.ok;
}
