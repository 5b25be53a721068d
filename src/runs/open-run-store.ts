/**
 * The one place that chooses where runs are kept: the runs of a working directory are its
 * `.prose/runs/` folders, and, when DBOS_SYSTEM_DATABASE_URL names a database, that database's runs
 * too. A run id names a folder run when the folder holds it, else a DBOS run. DBOS's SDK is loaded
 * only when the database is asked (`check` and `runs` without a database do not pay for it).
 */
import { RunStateError } from "../../runtime/stored-runs.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { DatabaseUnreachable, NoRunsDatabase, UsageError } from "../errors.js";
import { configuredDatabaseUrl } from "../worker/database-url.js";
import { FolderRuns } from "./folder-runs.js";
import { terminalText } from "../printable.js";
import type {
  Answers,
  Continuation,
  ContinueOptions,
  Decision,
  FoundRun,
  Pruned,
  RunListing,
  RunStore,
  StoredStep,
} from "./run-store.js";
import { newestFirst } from "./run-store.js";

export interface RunStoreOptions {
  /** The DBOS database whose runs are the store's too; by default DBOS_SYSTEM_DATABASE_URL's, if set. */
  readonly databaseUrl?: string | undefined;
}

/** The runs of `cwd` (and of the configured DBOS database). */
export function openRunStore(
  cwd: string,
  options: RunStoreOptions = { databaseUrl: configuredDatabaseUrl() },
): RunStore {
  const folder = new FolderRuns(cwd);
  const url = options.databaseUrl;
  if (url === undefined) return new CheckedIds(folder, folder);
  let opened: Promise<RunStore> | undefined;
  const database = (): Promise<RunStore> =>
    (opened ??= import("./dbos-runs.js").then(({ DbosRuns }) => new DbosRuns(url)));
  return new CheckedIds(folder, new FoldersThenDatabase(folder, database));
}

/** Any run id a store is asked about: never a path, never a query's wildcard. */
const RUN_ID = /^[\w.-]{1,100}$/;

/** Refuses a run id no store could hold before any store is asked. */
class CheckedIds implements RunStore {
  constructor(
    private readonly folder: FolderRuns,
    private readonly inner: RunStore,
  ) {}

  async list(): Promise<RunListing> {
    return this.inner.list();
  }
  async find(runId: string): Promise<FoundRun | undefined> {
    return RUN_ID.test(runId) ? this.inner.find(runId) : undefined;
  }
  async steps(runId: string): Promise<StoredStep[]> {
    return this.inner.steps(checked(runId));
  }
  async answer(runId: string, answers: Answers): Promise<string[]> {
    return this.inner.answer(checked(runId), answers);
  }
  async approve(runId: string, decision: Decision): Promise<string[]> {
    return this.inner.approve(checked(runId), decision);
  }
  async deny(runId: string, decision: Decision & { readonly reason?: string }): Promise<string[]> {
    return this.inner.deny(checked(runId), decision);
  }
  async cancel(runId: string): Promise<string[]> {
    return this.inner.cancel(checked(runId));
  }
  async resume(runId: string, options: ContinueOptions): Promise<Continuation> {
    return this.inner.resume(checked(runId, "--resume "), options);
  }
  async fork(runId: string, line: number, options: ContinueOptions): Promise<Continuation> {
    return this.inner.fork(checked(runId, "--resume "), line, options);
  }
  async prune(beforeMs: number, dryRun: boolean): Promise<Pruned> {
    return this.folder.prune(beforeMs, dryRun);
  }
}

function checked(runId: string, flag = ""): string {
  if (!RUN_ID.test(runId))
    throw new UsageError(`${flag}${runId}: a run id has letters, digits, '.', '_' and '-' (at most 100)`);
  return runId;
}

/** The folder runs, then the database's: a run id is the folder's when it holds it. */
class FoldersThenDatabase implements RunStore {
  constructor(
    private readonly folder: FolderRuns,
    private readonly database: () => Promise<RunStore>,
  ) {}

  private async holder(runId: string): Promise<RunStore> {
    return this.folder.folderOf(runId) === undefined ? this.database() : this.folder;
  }

  /** Both, newest first; the folder runs are listed even when the database cannot be read. */
  async list(): Promise<RunListing> {
    const [folders, database] = await Promise.all([this.folder.list(), this.database().then((store) => store.list())]);
    const runs = newestFirst([...folders.runs, ...database.runs]);
    // A database that could not be read is not said to hold no runs.
    const unread = database.problem !== undefined && database.problem.code !== EXIT.ok;
    return {
      runs,
      stores: [...folders.stores, ...database.stores],
      where: unread ? folders.where : `${folders.where} or ${database.where.replace(/^in /, "")}`,
      ...(database.problem === undefined ? {} : { problem: database.problem }),
    };
  }
  async find(runId: string): Promise<FoundRun | undefined> {
    return (await this.holder(runId)).find(runId);
  }
  async steps(runId: string): Promise<StoredStep[]> {
    return (await this.holder(runId)).steps(runId);
  }
  async answer(runId: string, answers: Answers): Promise<string[]> {
    return (await this.holder(runId)).answer(runId, answers);
  }
  async approve(runId: string, decision: Decision): Promise<string[]> {
    return (await this.holder(runId)).approve(runId, decision);
  }
  async deny(runId: string, decision: Decision & { readonly reason?: string }): Promise<string[]> {
    return (await this.holder(runId)).deny(runId, decision);
  }
  async cancel(runId: string): Promise<string[]> {
    return (await this.holder(runId)).cancel(runId);
  }
  async resume(runId: string, options: ContinueOptions): Promise<Continuation> {
    return (await this.holder(runId)).resume(runId, options);
  }
  async fork(runId: string, line: number, options: ContinueOptions): Promise<Continuation> {
    return (await this.holder(runId)).fork(runId, line, options);
  }
  async prune(beforeMs: number, dryRun: boolean): Promise<Pruned> {
    return this.folder.prune(beforeMs, dryRun);
  }
}

/**
 * A command's exit code, with what a store says went wrong in one line on stderr: a run whose records
 * cannot be read (exit 7), a database that cannot be reached (exit 8), one without DBOS's tables
 * (where no run can be found: a usage error). Never a stack trace.
 */
export async function reportingStore(command: () => Promise<ExitCode>): Promise<ExitCode> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof RunStateError) {
      // A message about a stored run may quote what it holds: no escape sequence reaches a terminal.
      process.stderr.write(terminalText(`prosec: ${error.message}\n`));
      return EXIT.runStateUnusable;
    }
    if (!(error instanceof DatabaseUnreachable || error instanceof NoRunsDatabase)) throw error;
    process.stderr.write(terminalText(`prosec: ${error.message}\n`));
    return error instanceof NoRunsDatabase ? EXIT.usage : EXIT.network;
  }
}
