/**
 * Where in the program's dynamic structure a step runs. Generated code passes it explicitly: each
 * `parallel` branch, `map` item and block call receives a `Runtime` handle bound to its context
 * (`Run.within`), so no AsyncLocalStorage is on a run's path (on Node 20 a live one makes every
 * promise in the process pay promise hooks, the SDK's and undici's included).
 *
 * A step key is `context path / kind@line:column#occurrence`. The context path grows by one segment
 * per `parallel` branch, `map` item and `block` call; the occurrence counts how often that call site
 * was reached in the current context, so a plain `for` / `while` loop in generated code gets distinct
 * keys (`#0`, `#1`, ...) with no help. Inside one context steps run in sequence, so the counting is
 * deterministic; everything concurrent gets a context of its own.
 *
 * Alongside the key path, each context keeps the same path in content anchors (`anchors.ts`), with
 * occurrences counted per anchor: what `prosec test` matches recorded steps by; and the structural
 * path (`step-keys.ts`), where each `line:column` is the statement's site in the program's outline:
 * what a resumed run of a changed program matches recorded steps by.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Trail } from "../values/trail.js";
import type { Site } from "../types.js";
import type { BlockFrame } from "../types/internal.js";

/** A key segment with its `line:column` replaced by the statement's site (`step-keys.ts`). */
export type Structural = (segment: string) => string;

export class StepContext {
  private readonly occurrences = new Map<string, number>();
  private readonly anchorOccurrences = new Map<string, number>();
  private readonly bindingOccurrences = new Map<string, number>();
  /** How many `finally:` bodies this context is running: a cancelled context's `finally` still runs its steps. */
  private cleanups = 0;
  /**
   * What a `finally:` body runs under: the run's own signal (a cancelled branch's `finally` runs, but
   * a run that is stopped stops it too).
   */
  shield: AbortSignal;

  constructor(
    readonly path: string,
    /** Aborts when this context's work is no longer wanted (a lost race, a failed sibling, the deadline). */
    private readonly own: AbortSignal,
    /** The innermost block invocation, if any. */
    readonly block: BlockFrame | undefined,
    /** `path` in content anchors. */
    readonly anchorPath: string = path,
    /** The current sequence's trail; a loop swaps in its own while it runs. */
    public trail: Trail = new Trail(),
    /** `path` with statement sites for call sites. */
    readonly structuralPath: string = path,
    readonly structural: Structural = (segment) => segment,
  ) {
    this.shield = own;
  }

  /** What this context's steps run under: its own signal, or the run's inside a `finally:` body. */
  get signal(): AbortSignal {
    return this.cleanups > 0 ? this.shield : this.own;
  }

  /** Whether this context was cancelled (a lost race, a failed sibling), even while a `finally:` runs. */
  get cancelled(): boolean {
    return this.own.aborted;
  }

  /** Why this context was cancelled (the race it lost, the sibling that failed). */
  get cancellation(): unknown {
    return this.own.reason;
  }

  /** A `finally:` body starts: its steps run although the context may be cancelled. */
  enterFinally(): void {
    this.cleanups++;
  }

  exitFinally(): void {
    this.cleanups = Math.max(0, this.cleanups - 1);
  }

  /** `kind@line:column#occurrence` for the next time `kind` is reached at `at` in this context. */
  nextSegment(kind: string, at: Site): string {
    const site = `${kind}@${at.line}:${at.column}`;
    const occurrence = this.occurrences.get(site) ?? 0;
    this.occurrences.set(site, occurrence + 1);
    return `${site}#${occurrence}`;
  }

  /**
   * The structural key of the step whose call-site segment is `segment` (just numbered by
   * `nextSegment`): a bound step is named by its kind and binding, counted per binding in this
   * context; any other by its statement's site.
   */
  structuralKey(segment: string, kind: string, binding: string | undefined): string {
    if (binding === undefined) return `${this.structuralPath}/${this.structural(segment)}`;
    const name = `${kind}:${binding}`;
    const occurrence = this.bindingOccurrences.get(name) ?? 0;
    this.bindingOccurrences.set(name, occurrence + 1);
    return `${this.structuralPath}/${name}#${occurrence}`;
  }

  /** `anchor#occurrence` for the next time the construct `anchor` is reached in this context. */
  nextAnchor(anchor: string): string {
    const occurrence = this.anchorOccurrences.get(anchor) ?? 0;
    this.anchorOccurrences.set(anchor, occurrence + 1);
    return `${anchor}#${occurrence}`;
  }

  /**
   * A child context whose path is this one's plus `segment` (and `anchorSegment` in anchors). It is
   * a sequence of its own: `trail` is where it starts (a branch continues from here, a block call
   * starts empty).
   */
  child(
    segment: string,
    signal: AbortSignal,
    block: BlockFrame | undefined,
    anchorSegment: string,
    trail: Trail,
  ): StepContext {
    const child = new StepContext(
      `${this.path}/${segment}`,
      signal,
      block,
      `${this.anchorPath}/${anchorSegment}`,
      trail,
      `${this.structuralPath}/${this.structural(segment)}`,
      this.structural,
    );
    child.shield = this.shield;
    return child;
  }
}

/**
 * Modules generated before contexts were passed (and hand-written code written like them) call the
 * outer `rt` inside their callbacks: a callback that takes no handle runs in this storage, which
 * `Run` reads first. It is made on first use, so a run of a current module never starts it.
 */
let legacy: AsyncLocalStorage<StepContext> | undefined;

/** The context of the legacy callback running now, if any. */
export function legacyContext(): StepContext | undefined {
  return legacy?.getStore();
}

/**
 * Runs a branch, item or block call in `context`: `body` gets it through its handle when it
 * `takesHandle`; otherwise (an older module's callback) through the legacy storage, which, once
 * started, every later callback also sets so that it always holds the innermost context.
 */
export function enterContext<T>(context: StepContext, takesHandle: boolean, body: () => Promise<T>): Promise<T> {
  if (takesHandle && legacy === undefined) return body();
  legacy ??= new AsyncLocalStorage<StepContext>();
  return legacy.run(context, body);
}

/**
 * Runs `body` outside any legacy context. Model requests run this way once the legacy storage is
 * live: the SDK and undici create many promises per request, and each would carry it for nothing.
 * `run(undefined)` rather than `exit()`: on Node 20 `exit()` switches the process's promise hooks off
 * and on again around every request.
 */
export function outsideContext<T>(body: () => T): T {
  return legacy === undefined ? body() : legacy.run(undefined as unknown as StepContext, body);
}
