/**
 * The trail: what a model sees of the program's earlier steps when it is given nothing explicitly
 * (DIALECT.md, "Context: what a model sees").
 *
 * A trail belongs to one sequence: the program's top level, a block call, one loop iteration, one
 * `parallel` branch or map item. `if`/`choice`/`try` bodies are transparent: they run in their
 * enclosing sequence. A point's trail is the trail of the enclosing sequence where the construct
 * began, then the previous iteration's unbound results (in a loop), then this sequence's own; a block
 * call starts empty. Entries are added in program order by the code that runs the sequence, so a
 * replayed run rebuilds the same trail from its replayed results.
 */
import { text } from "./expressions.js";
import type { Value } from "../types.js";

export interface TrailEntry {
  /** What produced it: a session's label, `do name`, a program call, a parallel branch. */
  readonly source: string;
  readonly value: Value;
}

const DEFAULT_TRAIL_TOKENS = 8_000;
const CHARACTERS_PER_TOKEN = 4;

/** The trail's budget in characters (`RunOptions.trailTokens`, default 8,000 estimated tokens). */
export function trailBudget(core: { readonly options: { readonly trailTokens?: number } }): number {
  return (core.options.trailTokens ?? DEFAULT_TRAIL_TOKENS) * CHARACTERS_PER_TOKEN;
}

export class Trail {
  private own: TrailEntry[] = [];
  private previous: readonly TrailEntry[] = [];

  /** `enclosing`: the enclosing sequence's trail where this sequence's construct began. */
  constructor(private readonly enclosing: readonly TrailEntry[] = []) {}

  /** A result that is nothing (a block without output) tells the model nothing: it is not added. */
  add(source: string, value: Value): void {
    if (value !== null) this.own.push({ source, value });
  }

  /** A loop's next iteration: this iteration's entries become the previous iteration's. */
  nextIteration(): void {
    this.previous = this.own;
    this.own = [];
  }

  /** Oldest to newest. */
  entries(): readonly TrailEntry[] {
    return [...this.enclosing, ...this.previous, ...this.own];
  }

  /** A sequence that begins here (a loop, a parallel branch, a map item). */
  nested(): Trail {
    return new Trail(this.entries());
  }
}

/**
 * The trail as request sections, oldest first, one per entry (the first under the heading): a growing
 * trail stays a cacheable prefix, block by block (prompt.ts, caching.ts). Over the budget, the newest
 * entries are kept, an entry larger than the whole budget is cut head and tail, and a line says how
 * many older entries were left out.
 */
export function trailSections(entries: readonly TrailEntry[], budget: number): string[] {
  if (entries.length === 0) return [];
  const kept: string[] = [];
  let used = 0;
  let index = entries.length - 1;
  for (; index >= 0; index--) {
    const entry = entries[index]!;
    let body = text(entry.value);
    if (kept.length === 0 && body.length > budget) body = cut(body, budget);
    const section = `### ${entry.source}\n\n${body}`;
    if (kept.length > 0 && used + section.length > budget) break;
    kept.unshift(section);
    used += section.length;
  }
  const dropped = index + 1;
  const note = dropped === 0 ? "" : `\n\n[${dropped} earlier result${dropped === 1 ? "" : "s"} left out]`;
  kept[0] = `## Earlier results (oldest first)${note}\n\n${kept[0]}`;
  return kept;
}

function cut(body: string, budget: number): string {
  const keep = Math.max(0, Math.floor(budget / 2) - 40);
  return `${body.slice(0, keep)}\n\n[... ${body.length - 2 * keep} characters omitted ...]\n\n${body.slice(body.length - keep)}`;
}
