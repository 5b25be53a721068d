/**
 * A run at rest: what the commands, the viewer and golden tests read and do to a stored run, whichever
 * backend keeps it. Two stores implement it, folder runs (`.prose/runs/`, folder-runs.ts) and DBOS runs
 * (a PostgreSQL database, dbos-runs.ts); open-run-store.ts opens the one a command uses, in one place.
 * Nothing outside src/runs/ asks which backend holds a run (test/meta/one-store.test.ts greps for it).
 */
import type { ExitCode } from "../exit-codes.js";

/**
 * A run's status in one vocabulary: `queued` (waiting for a worker), `running`, `waiting` (for an
 * input or an approval), `complete`, `failed`, `cancelled` (never resumed), `interrupted` (stopped
 * before its end: it can be resumed), `damaged` (its records cannot be read as written: not resumable).
 */
export type StoredRunStatus =
  "queued" | "running" | "waiting" | "complete" | "failed" | "cancelled" | "interrupted" | "damaged";

export interface StoredRun {
  readonly runId: string;
  /** Where it is kept, for people to read (`prosec runs`' STORE column): `file` (.prose/runs) or `dbos`. */
  readonly store: "file" | "dbos";
  readonly status: StoredRunStatus;
  /** The backend's own status word, when it has one (DBOS's `SUCCESS`, `PENDING`...). */
  readonly backendStatus?: string;
  /** The program's name. */
  readonly program?: string;
  /** The file it was run or submitted from. */
  readonly source?: string;
  /** When it started (ISO). */
  readonly startedAt?: string;
  /** When its records last changed (ISO). */
  readonly updatedAt?: string;
  /** Finished steps recorded. */
  readonly steps: number;
  /** Tokens its recorded steps used. */
  readonly tokens: number;
  /** US dollars from list prices; undefined when no model used has a known price (or it is damaged). */
  readonly cost: number | undefined;
  /** The eval the run is a case of (`prosec eval`). */
  readonly evalId?: string;
  /** The program version workers run it with (the compiled program's code hash). */
  readonly version?: string;
  readonly queue?: string;
  /** The worker that holds it, or last held it. */
  readonly worker?: string;
  /** The folder of its files, for a run that keeps a trace there (the viewer's step pages read it). */
  readonly folder?: string;
}

/** One run, found by its id: what `runs show` and the viewer say beyond the list's line. */
export interface FoundRun extends StoredRun {
  /** Its outputs, when it finished and the store keeps them. */
  readonly outputs?: unknown;
  /** Why it failed, when the store keeps it. */
  readonly error?: string;
  /** What it waits for (an input, a tool call to approve), each with the command that answers it. */
  readonly waitingFor: readonly string[];
}

/**
 * A recorded step. `status`: `finished`, `reused` (taken over from an earlier program text or a forked
 * run), `caught` (it failed and the program's `catch:` took the error), `running` (turns recorded, no
 * result yet) or `cancelled` (its branch lost a race or a sibling failed).
 */
export interface StoredStep {
  /** Its structural key (the step address `--resume` and golden files name it by). */
  readonly key: string;
  readonly line: number | null;
  readonly kind: string;
  readonly status: "finished" | "reused" | "caught" | "running" | "cancelled";
  /** How a caught step failed: `api-error`, `refusal`, `invalid-answer`, `timeout` or `error`. */
  readonly failure?: string;
  readonly fingerprint: string | null;
  readonly tokens: number;
  /** US dollars at list prices; null when the model has no known price. */
  readonly cost: number | null;
  /** Model turns recorded (for a session under way). */
  readonly turns?: number;
  /** Its value as text, when the store keeps values with steps. */
  readonly value?: string;
  /** The reason a judgment gave. */
  readonly reason?: string;
  /** The workflow it ran in: the run's, or a branch's (a store whose branches are workflows). */
  readonly workflow?: string;
}

/** The runs a store lists, newest first; `problem`, when part of it could not be read (the rest is listed). */
export interface RunListing {
  readonly runs: readonly StoredRun[];
  /** The stores listed (`file`, `dbos`), whether or not each could be read. */
  readonly stores: readonly StoredRun["store"][];
  /** Where the runs were looked for, for people: `in .prose/runs`. */
  readonly where: string;
  readonly problem?: { readonly message: string; readonly code: ExitCode };
}

/** The answers given to a waiting run, by input name (or question key). */
export type Answers = { readonly [name: string]: string };

/** The tool calls `approve` / `deny` decide: those named (call ids), or every pending one with `all`. */
export interface Decision {
  readonly calls: readonly string[];
  readonly all: boolean;
}

/** How `resume` and `fork` were asked: the program file named, and the version it compiles to. */
export interface ContinueOptions {
  /** The program file the command line named, if it named one (a folder run needs it to go on). */
  readonly file?: string;
  readonly version?: string;
  /** Outputs as JSON lines, as `prosec run --json`. */
  readonly json: boolean;
}

/**
 * How a run resumed or forked goes on: in this process (a folder run: the caller runs the program
 * again on `runId`, which replays what was recorded), or where the store runs it (a DBOS worker), in
 * which case it has ended with `exitCode` and its outputs are printed.
 */
export type Continuation = { readonly runHere: string; readonly note?: string } | { readonly ended: ExitCode };

/** What `prune` removed (or would have), and the old runs it kept because they are running. */
export interface Pruned {
  readonly removed: readonly StoredRun[];
  readonly running: readonly StoredRun[];
}

/**
 * The lines the control operations return are what the command prints. Every operation on a run the
 * store does not hold throws a UsageError naming where it looked; a run whose records cannot be read
 * throws RunStateError; a database that cannot be reached throws DatabaseUnreachable
 * (reportingStore maps each to its exit code).
 */
export interface RunStore {
  /** Every run, newest first. */
  list(): Promise<RunListing>;
  /** One run, or undefined when the store has none of that id. */
  find(runId: string): Promise<FoundRun | undefined>;
  /** A run's recorded steps, in the order they were recorded. */
  steps(runId: string): Promise<StoredStep[]>;
  /** Records answers for the inputs a waiting run asks for. */
  answer(runId: string, answers: Answers): Promise<string[]>;
  /** Approves tool calls a waiting run asks a person about. */
  approve(runId: string, decision: Decision): Promise<string[]>;
  /** Refuses them; the model is told, with the reason when one is given. */
  deny(runId: string, decision: Decision & { readonly reason?: string }): Promise<string[]>;
  /** Ends a waiting or running run; it is never resumed. */
  cancel(runId: string): Promise<string[]>;
  /** Continues a stopped run from where it stopped. */
  resume(runId: string, options: ContinueOptions): Promise<Continuation>;
  /** Starts a new run that reuses the steps `runId` recorded before `line`, and continues it. */
  fork(runId: string, line: number, options: ContinueOptions): Promise<Continuation>;
  /** Removes the runs last written before `beforeMs` that nothing runs now (none with `dryRun`). */
  prune(beforeMs: number, dryRun: boolean): Promise<Pruned>;
}

/** Runs newest first: by when they started, else when last written; ties by id, the later first. */
export function newestFirst<R extends Pick<StoredRun, "runId" | "startedAt" | "updatedAt">>(runs: readonly R[]): R[] {
  const startedMs = (run: R): number => {
    const started = Date.parse(run.startedAt ?? "");
    if (!Number.isNaN(started)) return started;
    const updated = Date.parse(run.updatedAt ?? "");
    return Number.isNaN(updated) ? 0 : updated;
  };
  return [...runs].sort((a, b) => startedMs(b) - startedMs(a) || (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0));
}
