/**
 * A worker's runs in flight, and what stops them: `prosec cancel` (the run's status is CANCELLED),
 * another worker taking the run over (this worker was paused past `--adopt-after`, or the run was put
 * back on the queue), or this worker shutting down. A stopped run's session is aborted at once (its
 * model request in flight too), and every turn and tool call first asks the database whether the
 * run is still this execution's, so nothing new starts once another owns it.
 */
import type pg from "pg";
import type { RunStops } from "../../runtime/dbos-runs.js";

export type StopReason = "cancelled" | "taken over by another worker" | "stopped with this worker";

/** Why a run in flight was stopped: the abort reason its session sees. */
export class RunStopped extends Error {
  constructor(
    readonly runId: string,
    readonly why: StopReason,
  ) {
    super(`Run ${runId} was ${why}.`);
  }
}

interface InFlight {
  readonly controller: AbortController;
  /** DBOS's token for this execution of the run (a new execution gets a new one), once seen. */
  owner: string | null | undefined;
}

interface Row {
  readonly workflow_uuid: string;
  readonly status: string;
  readonly executor_id: string | null;
  readonly owner_xid: string | null;
}

/** How often runs in flight are looked up, so that a cancel also aborts a model request under way. */
const WATCH_MS = 250;

export class WorkerRunStops implements RunStops {
  private readonly runs = new Map<string, InFlight>();
  private readonly stoppedRuns = new Map<string, StopReason>();
  private stopping = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pool: pg.Pool,
    private readonly executorId: string,
  ) {
    this.timer = setInterval(() => void this.watch(), WATCH_MS);
    this.timer.unref();
  }

  start(runId: string): { signal: AbortSignal; atBoundary: (boundary: "turn" | "tool") => Promise<void> } {
    const controller = new AbortController();
    this.runs.set(runId, { controller, owner: undefined });
    if (this.stopping) this.stop(runId, "stopped with this worker");
    return { signal: controller.signal, atBoundary: () => this.check(runId) };
  }

  stopped(runId: string): boolean {
    return this.stoppedRuns.has(runId);
  }

  /** Why `runId` was stopped here, if it was. */
  reason(runId: string): StopReason | undefined {
    return this.stoppedRuns.get(runId);
  }

  end(runId: string): void {
    this.runs.delete(runId);
  }

  /** Stops every run in flight (the worker is shutting down); their ids. */
  stopAll(): string[] {
    this.stopping = true;
    clearInterval(this.timer);
    const ids = [...this.runs.keys()];
    for (const runId of ids) this.stop(runId, "stopped with this worker");
    return ids;
  }

  /** A boundary in a session of `runId`: throws when the run is no longer this execution's. */
  private async check(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    run?.controller.signal.throwIfAborted();
    if (run === undefined) return;
    let rows: Row[];
    try {
      rows = await this.rows([runId]);
    } catch {
      // The database is away: DBOS refuses whatever this execution records if it lost the run meanwhile.
      return;
    }
    this.judge(run, runId, rows[0]);
    run.controller.signal.throwIfAborted();
  }

  private async watch(): Promise<void> {
    if (this.runs.size === 0) return;
    let rows: Row[];
    try {
      rows = await this.rows([...this.runs.keys()]);
    } catch {
      return;
    }
    const byId = new Map(rows.map((row) => [row.workflow_uuid, row]));
    for (const [runId, run] of this.runs) this.judge(run, runId, byId.get(runId));
  }

  private judge(run: InFlight, runId: string, row: Row | undefined): void {
    if (row === undefined || run.controller.signal.aborted) return;
    if (row.status === "CANCELLED") return this.stop(runId, "cancelled");
    const ours = row.status === "PENDING" && row.executor_id === this.executorId;
    if (ours && run.owner === undefined) run.owner = row.owner_xid;
    if (!ours || run.owner !== row.owner_xid) this.stop(runId, "taken over by another worker");
  }

  private stop(runId: string, why: StopReason): void {
    this.stoppedRuns.set(runId, why);
    this.runs.get(runId)?.controller.abort(new RunStopped(runId, why));
  }

  private async rows(ids: readonly string[]): Promise<Row[]> {
    const { rows } = await this.pool.query<Row>(
      `SELECT workflow_uuid, status, executor_id, owner_xid FROM dbos.workflow_status WHERE workflow_uuid = ANY($1)`,
      [ids],
    );
    return rows;
  }
}
