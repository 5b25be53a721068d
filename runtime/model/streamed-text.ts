/**
 * A session's text as it streams, turned into `delta` and `abandoned` run events. Secrets are removed
 * as everywhere else; since one may arrive split across pieces, the end of the text that could begin
 * one is held back until the next piece (or the end of the message) shows what it is.
 */
import type { StreamListener } from "./stream.js";
import type { Secrets } from "../tools/secrets.js";
import type { RunEvent, RunOptions, Site } from "../types.js";

/**
 * Where a model call is made, for its events: a session's turns also name their step, and stream
 * (`RunOptions.stream`); a judgment's, choice's or extraction's are sent whole.
 */
export interface CallSite {
  readonly at: Site;
  readonly label: string;
  readonly step?: string;
}

type StreamedTurn = Required<CallSite>;

type StreamEvent = Extract<RunEvent, { type: "delta" | "abandoned" }>;
type PendingStreamEvent = StreamEvent extends infer E ? (E extends StreamEvent ? Omit<E, "time"> : never) : never;

/** A stream nobody watches. */
const QUIET: StreamListener = { text: () => undefined, abandon: () => undefined, end: () => undefined };

/** Where a call's streamed text goes, when it streams: `delta` events for the run's `onEvent`. */
export function streamListener(
  site: CallSite | undefined,
  model: string,
  options: RunOptions,
  secrets: Secrets,
  emit: (event: PendingStreamEvent) => void,
): StreamListener | undefined {
  if (site?.step === undefined || options.stream === false) return undefined;
  if (options.onEvent === undefined || options.streamEvents === false) return QUIET;
  return new StreamedText({ at: site.at, label: site.label, step: site.step }, model, secrets, emit);
}

export class StreamedText implements StreamListener {
  private held = "";
  /** Characters given in `delta` events since the attempt began. */
  private shown = 0;
  private begun = false;

  constructor(
    private readonly turn: StreamedTurn,
    private readonly model: string,
    private readonly secrets: Secrets,
    private readonly emit: (event: PendingStreamEvent) => void,
  ) {}

  text(delta: string): void {
    // Whole secrets go first: the end held back may then only begin one, never cut through one.
    this.held = this.secrets.redact(this.held + delta);
    const safe = this.held.length - this.secrets.unsafeTail(this.held);
    if (safe > 0) this.give(this.held.slice(0, safe));
    this.held = this.held.slice(safe);
  }

  end(): void {
    if (this.held !== "") this.give(this.held);
    this.held = "";
  }

  abandon(reason: string): void {
    this.held = "";
    if (this.shown > 0) {
      const { at, label, step } = this.turn;
      this.emit({ type: "abandoned", at, label, step, model: this.model, characters: this.shown, reason });
    }
    this.shown = 0;
    this.begun = false;
  }

  private give(raw: string): void {
    const text = this.secrets.redact(raw);
    if (text === "") return;
    const { at, label, step } = this.turn;
    this.emit({
      type: "delta",
      at,
      label,
      step,
      model: this.model,
      text,
      ...(this.begun ? {} : { begins: true as const }),
    });
    this.begun = true;
    this.shown += text.length;
  }
}
