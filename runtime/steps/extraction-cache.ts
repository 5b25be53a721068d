/**
 * The extraction cache: the model reads structure out of a given text once per run and scope. A
 * nested `for` over the same text reads the same list, without paying for it (or risking another
 * answer) at every outer iteration; concurrent readers of one text share one request.
 */
import { isAbortError } from "../errors.js";
import type { RunCore } from "../kernel/core.js";
import type { Site, Value } from "../types.js";

export type ExtractionShape = "list" | "field" | "boolean";

export class ExtractionCache {
  private readonly answers = new Map<string, Promise<Value>>();

  constructor(private readonly core: RunCore) {}

  /** The answer to `ask` about `source`, asked once per scope of the run (`StepStore.scope`); `signal` is the asker's. */
  async once(
    signal: AbortSignal,
    at: Site,
    shape: ExtractionShape,
    source: string,
    ask: () => Promise<{ readonly value: Value }>,
  ): Promise<Value> {
    for (;;) {
      const asked = !this.answers.has(this.key(shape, source));
      try {
        return await this.shared(at, shape, source, ask);
      } catch (error) {
        // Another caller's request, cancelled (a branch that lost a race), is not this caller's failure: ask again.
        if (!asked && isAbortError(error) && !signal.aborted) continue;
        throw error;
      }
    }
  }

  /** Drops a remembered answer, so the next reader asks again. */
  forget(shape: ExtractionShape, source: string): void {
    this.answers.delete(this.key(shape, source));
  }

  private key(shape: ExtractionShape, source: string): string {
    return `${this.core.durability.scope()}\0${shape}\0${source}`;
  }

  private shared(
    at: Site,
    shape: ExtractionShape,
    source: string,
    ask: () => Promise<{ readonly value: Value }>,
  ): Promise<Value> {
    const key = this.key(shape, source);
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = ask().then(
        (result) => {
          this.core.emit({ type: "extraction", at, shape, method: "model" });
          return result.value;
        },
        (error: unknown) => {
          this.answers.delete(key);
          throw error;
        },
      );
      this.answers.set(key, answer);
    }
    return answer;
  }
}
