/**
 * A worker's view of its database through an outage (a restart, a failover, a dropped connection).
 * While the database is gone, DBOS holds every run at its next checkpoint and retries; the worker
 * says so once, says once when the database is back, and gives up only after `limitMs` without it.
 */
export class DatabaseOutage {
  private since: number | undefined;
  private back = Date.now();

  constructor(
    /** How long the database may stay unreachable before the worker gives up (`--outage-limit`). */
    private readonly limitMs: number,
    private readonly log: (line: string) => void,
    /** Called once, when the outage has lasted `limitMs`. */
    private readonly giveUp: (message: string) => void,
  ) {}

  /** The database could not be reached, or dropped the connection. */
  failed(error: unknown): void {
    const now = Date.now();
    const reason = error instanceof Error ? error.message : String(error);
    if (this.since === undefined) {
      this.since = now;
      this.log(
        `database unreachable (${reason}): runs pause at their next checkpoint; retrying, for up to ${seconds(this.limitMs)} s`,
      );
    } else if (now - this.since >= this.limitMs) {
      this.giveUp(`the database was unreachable for ${seconds(now - this.since)} s (--outage-limit): ${reason}`);
    }
  }

  /** The database answered. */
  reached(): void {
    if (this.since === undefined) return;
    const now = Date.now();
    this.log(`database reachable again after ${seconds(now - this.since)} s: carrying on`);
    this.since = undefined;
    this.back = now;
  }

  get unreachable(): boolean {
    return this.since !== undefined;
  }

  /**
   * How long the database has answered without a break. Other workers were cut off too, and
   * reconnect at their own pace: their silence means nothing until this worker has seen as much of
   * the database as it gives them to speak.
   */
  reachableForMs(): number {
    return this.since === undefined ? Date.now() - this.back : 0;
  }
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
}
