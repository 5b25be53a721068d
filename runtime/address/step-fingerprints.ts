/**
 * A run folder's fingerprints of steps (`step-keys.ts`): what a step asks, how, and the content of
 * what it read, so a resumed run that changed one of them re-runs the steps that depend on it. Also the program's outline, from which steps get their structures (aligned with the
 * recorded text when a changed program resumes).
 */
import { ProgramOutline } from "./outline.js";
import { fingerprint, valueDigest } from "./step-keys.js";
import type { TrailEntry } from "../values/trail.js";
import type { ProgramInfo, RunOptions, StepAsk, StepKind, StepModel, Value } from "../types.js";

export class StepFingerprints {
  /** Whether steps are fingerprinted (a run folder keeps fingerprints). */
  enabled: boolean;
  /** Built on first use. */
  private programOutline: ProgramOutline | undefined;

  constructor(
    private readonly program: ProgramInfo,
    private readonly options: RunOptions,
    /** The model id a step's model name resolves to. */
    private readonly modelOf: (name: string | undefined) => string,
    caller?: StepFingerprints,
  ) {
    this.enabled = caller?.enabled ?? false;
  }

  /** The program's outline, for structures. */
  outline(): ProgramOutline | undefined {
    if (this.programOutline === undefined && this.program.text !== undefined)
      this.programOutline = ProgramOutline.of(this.program.text);
    return this.programOutline;
  }

  /**
   * Resuming a run recorded with `previous`, an earlier text of this program: statement sites are
   * taken from it where statements were kept, so unnamed steps keep their structures.
   */
  alignWith(previous: string): void {
    if (this.program.text !== undefined) this.programOutline = ProgramOutline.aligned(this.program.text, previous);
  }

  /** The model a step asks, by name and resolved id: a session's always, a judgment's when it names one. */
  model(kind: StepKind, ask: StepAsk): StepModel | undefined {
    const { model } = (ask.details() ?? {}) as { readonly model?: unknown };
    if (typeof model !== "string" && kind !== "session") return undefined;
    const name = typeof model === "string" ? model : undefined;
    return { name: name ?? "", id: this.modelOf(name) };
  }

  /**
   * A step's fingerprint: what it asks, how, and what it read, each value by its content. Never by
   * which step produced it, guessed from equal texts: two steps that answer alike would each look
   * like the other's input, and a resumed run would re-run (or reuse) a step for the wrong reason.
   * By content, a step is reused exactly when the request it would send is the one recorded.
   */
  of(kind: StepKind, ask: StepAsk, trail: readonly TrailEntry[]): string {
    const details = (ask.details() ?? {}) as { readonly model?: unknown; readonly context?: unknown };
    const model = typeof details.model === "string" || kind === "session" ? this.modelOf(details.model as string) : "";
    const context = details.context;
    const contextValues =
      context === undefined || context === null || Array.isArray(context)
        ? []
        : Object.values(context as Record<string, Value>);
    // A session with `context:` (even `[]`) is not shown the trail.
    const seen = kind === "session" && context !== undefined ? [] : trail;
    // A record context is read by its values' producers (below); what it names stays in how it asks.
    const how = contextValues.length === 0 ? details : { ...details, context: Object.keys(context as object) };
    return fingerprint({
      kind,
      asks: ask.text,
      how: [how, model, this.program.name, (this.options.tools ?? []).map((tool) => tool.name)],
      reads: [...contextValues.map(valueDigest), ...seen.map((entry) => `${entry.source}:${valueDigest(entry.value)}`)],
    });
  }
}
