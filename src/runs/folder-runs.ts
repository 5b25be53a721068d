/**
 * The runs kept in `.prose/runs/`, one folder each: the RunStore of a working directory. What a
 * folder holds is read by folder-list.ts (the listing) and folder-steps.ts (the journal's steps);
 * answers, approvals and cancels are written by folder-control.ts, forks by runtime/durable/fork.ts.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { answerName, readWaiting, forkRun, APPROVAL_PREFIX } from "../../runtime/stored-runs.js";
import { newRunId, refuseLinks } from "../../runtime/stored-runs.js";
import { UsageError } from "../errors.js";
import { answerFileRun, cancelFileRun, decideFileRun } from "./folder-control.js";
import { isRunning, listRuns, readRun, runsFolder, type ListedRun } from "./folder-list.js";
import { runSteps } from "./folder-steps.js";
import { withRunAbove } from "./runs-above.js";
import type {
  Answers,
  Continuation,
  ContinueOptions,
  Decision,
  FoundRun,
  Pruned,
  RunListing,
  RunStore,
  StoredRun,
  StoredStep,
} from "./run-store.js";
import { newestFirst } from "./run-store.js";

/** A run id `prosec run` gives: its start time and six hex digits. */
const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;
/** Any id a folder may be named by: never a path (`..`, `/`). */
const SAFE_ID = /^(?!\.\.?$)[\w.-]{1,100}$/;

export class FolderRuns implements RunStore {
  constructor(private readonly cwd: string) {}

  /** The run's folder, when this working directory holds it. */
  folderOf(runId: string): string | undefined {
    if (!SAFE_ID.test(runId)) return undefined;
    const dir = join(runsFolder(this.cwd), runId);
    return existsSync(dir) ? dir : undefined;
  }

  async list(): Promise<RunListing> {
    return {
      runs: newestFirst(listRuns(this.cwd).map(storedRun)),
      stores: ["file"],
      where: `in ${join(".prose", "runs")}`,
    };
  }

  async find(runId: string): Promise<FoundRun | undefined> {
    const dir = this.folderOf(runId);
    if (dir === undefined) return undefined;
    // What is shown of a run (`prosec view`, the report `--out` writes, a person may share) is read by
    // name too: a `program.prose` linked to ~/.ssh/id_rsa would show that file.
    refuseLinks(dir);
    return { ...storedRun(readRun(runId, dir)), waitingFor: waitingLines(dir, runId) };
  }

  async steps(runId: string): Promise<StoredStep[]> {
    return runSteps(this.folder(runId, `runs show ${runId}: there is no such run in .prose/runs`));
  }

  async answer(runId: string, answers: Answers): Promise<string[]> {
    return answerFileRun(this.folder(runId), runId, answers);
  }

  async approve(runId: string, decision: Decision): Promise<string[]> {
    return decideFileRun(this.folder(runId), runId, decision.calls, decision.all, "yes");
  }

  async deny(runId: string, decision: Decision & { readonly reason?: string }): Promise<string[]> {
    const answer = decision.reason === undefined ? "no" : `no: ${decision.reason}`;
    return decideFileRun(this.folder(runId), runId, decision.calls, decision.all, answer);
  }

  async cancel(runId: string): Promise<string[]> {
    return cancelFileRun(this.folder(runId), runId);
  }

  /** A folder run goes on in this process: `prosec run FILE --resume ID` replays what it recorded. */
  async resume(runId: string, options: ContinueOptions): Promise<Continuation> {
    this.resumable(runId, options);
    return { runHere: runId };
  }

  /** A new folder with the old run's beginning (runtime/durable/fork.ts), continued in this process. */
  async fork(runId: string, line: number, options: ContinueOptions): Promise<Continuation> {
    const from = this.resumable(runId, options);
    const forkId = newRunId(new Date());
    const fork = forkRun(from, join(runsFolder(this.cwd), forkId), forkId, line);
    const note = `forked run ${runId} into ${forkId}: reusing the ${fork.reused} ${fork.reused === 1 ? "step" : "steps"} it recorded before ${fork.firstLine === undefined ? "its end" : `line ${fork.firstLine}`}`;
    return { runHere: forkId, note };
  }

  async prune(beforeMs: number, dryRun: boolean): Promise<Pruned> {
    const removed: StoredRun[] = [];
    const running: StoredRun[] = [];
    for (const run of listRuns(this.cwd)) {
      if (run.lastWrittenMs >= beforeMs) continue;
      // Asked again just before removing: a run may have been resumed since the list was read.
      if (run.status === "running" || isRunning(run.dir)) running.push(storedRun(run));
      else {
        if (!dryRun) rmSync(run.dir, { recursive: true, force: true });
        removed.push(storedRun(run));
      }
    }
    return { removed, running };
  }

  /** The folder of a run `prosec run --resume` may continue, which needs its program. */
  private resumable(runId: string, options: ContinueOptions): string {
    if (!RUN_ID.test(runId)) throw new UsageError(`--resume ${runId}: a run id looks like 20260115-143052-a7b3c9`);
    const dir = this.folderOf(runId);
    // A folder without a usable run.json is the runtime's to explain (EXIT.runStateUnusable).
    if (dir === undefined)
      throw new UsageError(
        withRunAbove(
          `--resume ${runId}: there is no such run in ${join(".prose", "runs")} (set DBOS_SYSTEM_DATABASE_URL to resume a run in a DBOS database)`,
          this.cwd,
          runId,
        ),
      );
    if (options.file === undefined)
      throw new UsageError(
        "Not enough non-option arguments: got 0, need at least 1 (the program to run; only a DBOS run resumes without it: prosec run --resume ID)",
      );
    return dir;
  }

  private folder(runId: string, missing?: string): string {
    const dir = this.folderOf(runId);
    if (dir === undefined)
      throw new UsageError(
        withRunAbove(
          missing ??
            `there is no run ${runId} in .prose/runs here, and DBOS_SYSTEM_DATABASE_URL is not set to look for it in a database`,
          this.cwd,
          runId,
        ),
      );
    // Answering, approving, cancelling and resuming write into it by name.
    refuseLinks(dir);
    return dir;
  }
}

function storedRun(run: ListedRun): StoredRun {
  return {
    runId: run.runId,
    store: "file",
    status: run.status,
    ...(run.program === undefined ? {} : { program: run.program }),
    ...(run.source === undefined ? {} : { source: run.source }),
    ...(run.startedAt === undefined ? {} : { startedAt: run.startedAt }),
    ...(run.lastWrittenMs === 0 ? {} : { updatedAt: new Date(run.lastWrittenMs).toISOString() }),
    steps: run.steps,
    tokens: run.tokens,
    cost: run.cost,
    ...(run.evalId === undefined ? {} : { evalId: run.evalId }),
    folder: run.dir,
  };
}

/** What a stopped run waits for: its inputs (answered, then resumed) and tool calls to approve. */
function waitingLines(dir: string, runId: string): string[] {
  let questions;
  try {
    questions = readWaiting(dir)?.questions ?? [];
  } catch {
    return [];
  }
  return questions.map((question) => {
    if (!question.name.startsWith(APPROVAL_PREFIX))
      return `for input "${answerName(question, questions)}" (${question.prompt}): prosec answer ${runId} ${answerName(question, questions)}=..., then prosec run --resume ${runId}`;
    const call = question.name.slice(APPROVAL_PREFIX.length);
    return `for approval: ${call}: ${question.prompt} (prosec approve ${runId} ${call}, or prosec deny)`;
  });
}
