/**
 * Writes a run's readable files (bindings, state.md) behind the run, each atomically (temporary file,
 * then rename). A file asked for again before it was written is written once, with its latest
 * content: a binding rebound in a tight loop costs one write, not one per iteration. Content may be a
 * function, called when the file is written, so state.md is rendered only as often as it reaches disk.
 *
 * Files are written in batches every BATCH_MS, so a name rebound by every step is written a few times,
 * not every time. A batch is written on the spot while the disk answers fast: on a local disk a file
 * costs tens of microseconds that way, and several times as much CPU through the thread pool (four
 * round trips a file; the 64 bindings of a fan-out: 15 ms against 7). The first batch that takes
 * SLOW_BATCH_MS or more moves the run's writes to the thread pool for good, IN_FLIGHT at a time (never
 * one file twice at once, so each file ends with its latest content): a slow or busy disk's latency
 * then overlaps the run instead of stalling it (measured with 200 bindings on a busy machine, every
 * write on the spot made the run 2.0–2.6x the in-memory one; four at a time in the background did not).
 */
import { dirname } from "node:path";
import { asEnvironmentError } from "../errors.js";
import { makeDirectory } from "../make-directory.js";
import { makeFolder, replaceFile, replaceFileNow } from "./files.js";

export type FileContent = string | (() => string);

const IN_FLIGHT = 4;
const BATCH_MS = 50;
const SLOW_BATCH_MS = 5;

export class FileWriter {
  private readonly pending = new Map<string, FileContent>();
  private readonly writing = new Set<string>();
  private readonly folders = new Map<string, Promise<unknown>>();
  private readonly waiting: Array<() => void> = [];
  private batch: NodeJS.Timeout | undefined;
  /** Set by the first slow batch: from then on files are written through the thread pool. */
  private pooled = false;
  private failure: unknown;
  /** Told of the first failed write, as an EnvironmentError when the machine caused it (the run stops). */
  onFailure: ((error: unknown) => void) | undefined;

  /** `slowBatchMs`: how long writing a batch on the spot may take before writes go through the thread pool. */
  constructor(private readonly slowBatchMs = SLOW_BATCH_MS) {}

  write(path: string, content: FileContent): void {
    this.pending.set(path, content);
    this.batch ??= setTimeout(() => {
      this.batch = undefined;
      this.startWrites();
    }, BATCH_MS).unref();
  }

  /** Resolves when everything asked for so far is on disk; rejects with the first failed write. */
  async flush(): Promise<void> {
    if (this.batch !== undefined) clearTimeout(this.batch);
    this.batch = undefined;
    this.startWrites();
    while (this.pending.size > 0 || this.writing.size > 0)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.failure !== undefined) throw this.failure;
  }

  private startWrites(): void {
    if (!this.pooled) this.writeNow();
    for (const [path, content] of this.pending) {
      if (this.writing.size >= IN_FLIGHT) return;
      if (this.writing.has(path)) continue;
      this.pending.delete(path);
      this.writing.add(path);
      void this.writeOne(path, content).then(() => {
        this.writing.delete(path);
        this.startWrites();
        if (this.pending.size === 0 && this.writing.size === 0) for (const resolve of this.waiting.splice(0)) resolve();
      });
    }
  }

  /** Writes what is pending on the spot, until the batch is slow; the rest is left to the thread pool. */
  private writeNow(): void {
    const started = performance.now();
    for (const [path, content] of this.pending) {
      this.pending.delete(path);
      try {
        const folder = dirname(path);
        if (!this.folders.has(folder)) {
          makeDirectory(folder);
          this.folders.set(folder, Promise.resolve());
        }
        replaceFileNow(path, typeof content === "string" ? content : content());
      } catch (error) {
        this.fail(error, path);
      }
      if (performance.now() - started >= this.slowBatchMs) {
        this.pooled = true;
        return;
      }
    }
    if (this.writing.size === 0) for (const resolve of this.waiting.splice(0)) resolve();
  }

  private fail(error: unknown, path: string): void {
    if (this.failure !== undefined) return;
    this.failure = asEnvironmentError(error, `Writing ${path}`);
    this.onFailure?.(this.failure);
  }

  private async writeOne(path: string, content: FileContent): Promise<void> {
    try {
      await this.folder(dirname(path));
      await replaceFile(path, typeof content === "string" ? content : content());
    } catch (error) {
      this.fail(error, path);
    }
  }

  /** Creates each folder once per run, not once per file. */
  private folder(path: string): Promise<unknown> {
    let made = this.folders.get(path);
    if (made === undefined) this.folders.set(path, (made = makeFolder(path)));
    return made;
  }
}
