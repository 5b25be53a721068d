/**
 * Writes a run's readable files (bindings, state.md, run.json) one after another, each atomically,
 * in the order they were asked for. A file asked for again before it was written is written once,
 * with its latest content: a binding rebound in a tight loop costs one write, not one per iteration.
 * Content may be a function, called when the file is written, so state.md is rendered only as often
 * as it reaches the disk.
 */
import { writeAtomically } from "../files.js";

export type FileContent = string | (() => string);

export class FileWriter {
  private readonly pending = new Map<string, FileContent>();
  private draining: Promise<void> | undefined;
  private failure: unknown;

  write(path: string, content: FileContent): void {
    this.pending.set(path, content);
    this.draining ??= this.drain();
  }

  /** Resolves when everything asked for so far is on disk; rejects with the first failed write. */
  async flush(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
    if (this.failure !== undefined) throw this.failure;
  }

  private async drain(): Promise<void> {
    // Let the step that asked for the write go on first: the files follow the journal, they do not gate it.
    await Promise.resolve();
    for (let next = this.take(); next !== undefined; next = this.take()) {
      const [path, content] = next;
      try {
        await writeAtomically(path, typeof content === "string" ? content : content());
      } catch (error) {
        this.failure ??= error;
      }
    }
    this.draining = undefined;
  }

  private take(): [string, FileContent] | undefined {
    const first = this.pending.entries().next();
    if (first.done === true) return undefined;
    this.pending.delete(first.value[0]);
    return first.value;
  }
}
