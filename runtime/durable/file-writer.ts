/**
 * Writes a run's readable files (bindings, state.md) behind the run, each atomically (temporary file,
 * then rename). A file asked for again before it was written is written once, with its latest
 * content: a binding rebound in a tight loop costs one write, not one per iteration. Content may be a
 * function, called when the file is written, so state.md is rendered only as often as it reaches disk.
 *
 * The writes go through the thread pool, IN_FLIGHT at a time (never one file twice at once, so each
 * file ends with its latest content), so their disk latency overlaps the run instead of stalling it.
 * Measured with 200 bindings on a busy machine: one at a time 1.8x the in-memory run, synchronous
 * writes 2.0–2.6x, four at a time 1.6x.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export type FileContent = string | (() => string);

const IN_FLIGHT = 4;

export class FileWriter {
  private readonly pending = new Map<string, FileContent>();
  private readonly writing = new Set<string>();
  private readonly folders = new Map<string, Promise<unknown>>();
  private readonly waiting: Array<() => void> = [];
  private failure: unknown;

  write(path: string, content: FileContent): void {
    this.pending.set(path, content);
    this.startWrites();
  }

  /** Resolves when everything asked for so far is on disk; rejects with the first failed write. */
  async flush(): Promise<void> {
    while (this.pending.size > 0 || this.writing.size > 0) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.failure !== undefined) throw this.failure;
  }

  private startWrites(): void {
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

  private async writeOne(path: string, content: FileContent): Promise<void> {
    const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await this.folder(dirname(path));
      await writeFile(temporary, typeof content === "string" ? content : content(), "utf8");
      await rename(temporary, path);
    } catch (error) {
      this.failure ??= error;
      await rm(temporary, { force: true }).catch(() => undefined);
    }
  }

  /** Creates each folder once per run, not once per file. */
  private folder(path: string): Promise<unknown> {
    let made = this.folders.get(path);
    if (made === undefined) this.folders.set(path, (made = mkdir(path, { recursive: true })));
    return made;
  }
}
