/**
 * What `prosec run` shows while a program runs, from the runtime's events (prose.md's narration):
 *
 * - `live` (a terminal): a line per finished session, judgment, parallel block and loop iteration,
 *   under a status line that names the sessions in flight; while one session runs, its text as it
 *   arrives (`delta` events), and while several do, a status line per site with the characters they
 *   streamed so far;
 * - `plain` (not a terminal): quiet; the run id first (`--resume` and `prosec test --save` need it), then
 *   finished sessions, judgments, unexpected model answers and errors only, no colour;
 * - `json`: every event as one JSON line, for other programs to read; `delta` and `abandoned` only when
 *   asked for (`--json --stream`).
 *
 * Both text modes end with the totals: time, sessions, tokens and an estimated cost.
 */
import type { AnswerAction, FailureCause, RunEvent, Usage } from "../../runtime/index.js";
import { forStream, terminalText } from "../printable.js";
import { estimateCost } from "./cost.js";
import { jsonText } from "../json-text.js";

export type NarrationMode = "live" | "plain" | "json";

export interface Narrator {
  event(event: RunEvent): void;
  /** Clears the status line (before the outputs or a message are printed). */
  pause(): void;
}

interface Style {
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
}

const plainStyle: Style = { dim: (t) => t, green: (t) => t, red: (t) => t, cyan: (t) => t };
const colorStyle: Style = {
  dim: (t) => `\x1b[2m${t}\x1b[22m`,
  green: (t) => `\x1b[32m${t}\x1b[39m`,
  red: (t) => `\x1b[31m${t}\x1b[39m`,
  cyan: (t) => `\x1b[36m${t}\x1b[39m`,
};

/** The events of text as it streams: JSON output has them only when asked (`--json --stream`). */
/** How a caught step failed, in words. */
const CAUGHT_CAUSES: Readonly<Record<FailureCause, string>> = {
  "api-error": "API error",
  refusal: "the model refused",
  "invalid-answer": "no usable answer",
  timeout: "time limit",
  error: "error",
};

const STREAM_EVENTS: ReadonlySet<RunEvent["type"]> = new Set(["delta", "abandoned"]);

/** How often the lanes' status lines are redrawn while text streams. */
const LANE_REDRAW_MS = 100;
/** Lanes shown at most; the rest are counted on one more line. */
const MAX_LANES = 8;

export function createNarrator(
  mode: NarrationMode,
  out: NodeJS.WritableStream,
  color: boolean,
  { stream = false }: { readonly stream?: boolean } = {},
): Narrator {
  if (mode === "json")
    return {
      event: (event) => {
        if (stream || !STREAM_EVENTS.has(event.type)) out.write(`${jsonText(event)}\n`);
      },
      pause: () => undefined,
    };
  return new TextNarrator(mode === "live", out, color ? colorStyle : plainStyle);
}

interface Running {
  label: string;
  count: number;
  /** Characters its sessions streamed so far. */
  characters: number;
  /**
   * By step (sessions at one site tell apart by it): the text of its current model request so far, so
   * a session left running alone mid-answer is shown from there, not from the middle of a word.
   */
  turns: Map<string, string>;
}

class TextNarrator implements Narrator {
  private readonly running = new Map<string, Running>();
  /** Lines of the status drawn below the narration (0: none). */
  private statusLines = 0;
  /** A lone session's text is being written as it arrives, and its last line is not ended yet. */
  private midLine = false;
  /** The site whose text is written as it arrives, while it is the only session running. */
  private inline: string | undefined;
  private redraw: NodeJS.Timeout | undefined;
  private sessions = 0;
  private replayed = 0;
  private runShown = false;

  constructor(
    private readonly live: boolean,
    private readonly out: NodeJS.WritableStream,
    private readonly style: Style,
  ) {}

  event(given: RunEvent): void {
    const event = shownEvent(given);
    const { style } = this;
    const where =
      event.at === undefined
        ? ""
        : style.dim(`${event.source === undefined ? "" : `${event.source}:`}${event.at.line}:${event.at.column} `);
    switch (event.type) {
      case "run-start":
        // The first is the run's own; a program it calls starts a run of its own inside it.
        if (!this.runShown) this.line(style.dim(`run ${event.runId} · ${event.program}`));
        this.runShown = true;
        break;
      case "session-start":
        this.track(event, +1, event.label);
        break;
      case "delta":
        if (this.live) this.streamed(event);
        return;
      case "abandoned":
        if (this.live) this.abandoned(event, where);
        return;
      case "fallback":
        this.line(
          `${style.cyan("↪")} ${where}${event.label}: ${event.from} ${style.dim(`(${event.reason})`)} → ${event.to}`,
        );
        break;
      case "session-end": {
        this.track(event, -1, event.label);
        if (event.cancelled === true) {
          this.line(`${style.dim("⊘")} ${where}${event.label} ${style.dim("· cancelled")}`);
          break;
        }
        this.sessions++;
        if (event.replayed) this.replayed++;
        const detail = event.replayed ? "replayed from the journal" : `${formatNumber(tokens(event.usage))} tokens`;
        const cut = event.truncated === true ? ` · ${style.red("cut off at max_tokens, kept as it is")}` : "";
        this.line(`${style.green("✓")} ${where}${event.label} ${style.dim(`· ${detail}`)}${cut}`);
        break;
      }
      case "unexpected-answer": {
        const failed = event.action === "fail";
        this.line(
          `${(failed ? style.red : style.cyan)("↺")} ${where}${event.label}: ${ANSWER_ACTIONS[event.action]} ${style.dim(`(answer ${event.attempt}: ${event.detail})`)}`,
        );
        break;
      }
      case "judgment":
        this.line(
          `${style.cyan("?")} ${where}${event.question} ${style.cyan(`→ ${event.answer}`)}${event.reason === "" ? "" : style.dim(` (${event.reason})`)}`,
        );
        break;
      case "assert":
        this.line(
          `${event.passed ? style.green("✓") : style.red("✗")} ${where}assert ${event.passed ? "held" : "failed"}: ${event.message ?? event.id}`,
        );
        break;
      case "parallel-start":
        if (this.live) this.line(`${style.cyan("⇉")} ${where}${event.branches} branches in parallel`);
        break;
      case "parallel-end":
        if (this.live)
          this.line(
            `${style.cyan("⇉")} ${where}parallel done: ${event.succeeded} succeeded${event.failed === 0 ? "" : `, ${event.failed} failed`}`,
          );
        break;
      case "loop-iteration":
        if (this.live) this.line(`${style.cyan("↻")} ${where}iteration ${event.iteration + 1}`);
        break;
      case "notice":
        this.line(`${style.red("!")} ${event.message}`);
        break;
      case "step-caught": {
        // The step ends here: its error goes to the program's `catch:`, and the run goes on.
        this.track(event, -1, event.label);
        const failed = `${event.label} failed: `;
        const message = event.message.startsWith(failed) ? event.message.slice(failed.length) : event.message;
        this.line(
          `${style.red("✗")} ${where}${event.label} failed ${style.dim(`(${CAUGHT_CAUSES[event.cause]}${event.replayed ? ", replayed from the journal" : ""})`)}: ${message} ${style.cyan("→ caught")}`,
        );
        break;
      }
      case "error":
        // A failed step never ends: nothing is running any more once the run reports its error.
        this.running.clear();
        this.line(`${style.red("✗")} ${event.message}`);
        break;
      case "resumed":
        this.line(`${style.cyan("↺")} ${event.summary}`);
        break;
      case "run-end":
        // A called program's run ends inside its caller's: only the run's own end has the totals line.
        if (event.source !== undefined) break;
        this.running.clear();
        this.line(this.summary(event.ok, event.time, event.usage));
        break;
      default:
        return;
    }
    this.drawStatus();
  }

  pause(): void {
    if (this.redraw !== undefined) clearTimeout(this.redraw);
    this.redraw = undefined;
    if (this.midLine) this.out.write("\n");
    this.midLine = false;
    if (this.statusLines === 0) return;
    this.out.write(`\r\x1b[K${"\x1b[1A\x1b[K".repeat(this.statusLines - 1)}`);
    this.statusLines = 0;
  }

  private track(event: RunEvent, change: number, label: string): void {
    const key = siteKey(event);
    const entry = this.running.get(key) ?? { label, count: 0, characters: 0, turns: new Map<string, string>() };
    entry.count += change;
    if (entry.count > 0) this.running.set(key, entry);
    else this.running.delete(key);
    if (this.inline !== undefined && (this.sessionsRunning() !== 1 || !this.running.has(this.inline)))
      this.inline = undefined;
  }

  /** Text as it arrives: written out while its session runs alone, else counted in its lane. */
  private streamed(event: Extract<RunEvent, { type: "delta" }>): void {
    const key = siteKey(event);
    const entry = this.running.get(key);
    if (entry !== undefined) {
      entry.characters += event.text.length;
      entry.turns.set(
        event.step,
        event.begins === true ? event.text : (entry.turns.get(event.step) ?? "") + event.text,
      );
    }
    if (this.sessionsRunning() === 1 && entry !== undefined && (this.inline === undefined || this.inline === key)) {
      // Left alone mid-answer (the sessions beside it finished): its answer so far, then as it arrives.
      const text = this.inline === undefined ? (entry.turns.get(event.step) ?? event.text) : event.text;
      if (this.inline === undefined || (event.begins === true && this.midLine)) {
        this.pause();
        if (this.inline === undefined) this.out.write(this.style.dim(`${event.label}:\n`));
      } else if (this.statusLines > 0) this.pause();
      this.inline = key;
      this.out.write(forStream(this.out, text));
      this.midLine = !text.endsWith("\n");
      return;
    }
    this.redraw ??= setTimeout(() => {
      this.redraw = undefined;
      this.drawStatus();
    }, LANE_REDRAW_MS).unref();
  }

  private abandoned(event: Extract<RunEvent, { type: "abandoned" }>, where: string): void {
    const entry = this.running.get(siteKey(event));
    if (entry !== undefined) {
      entry.characters = Math.max(0, entry.characters - event.characters);
      entry.turns.delete(event.step);
    }
    const shown = this.inline === siteKey(event);
    this.line(
      `${this.style.cyan("↺")} ${where}${event.label}: ${shown ? "the text above is abandoned" : `${formatNumber(event.characters)} characters abandoned`} ${this.style.dim(`(${event.reason}); asking again`)}`,
    );
    this.inline = undefined;
    this.drawStatus();
  }

  private sessionsRunning(): number {
    let count = 0;
    for (const entry of this.running.values()) count += entry.count;
    return count;
  }

  private line(text: string): void {
    this.pause();
    this.out.write(`${text}\n`);
  }

  private drawStatus(): void {
    if (!this.live || this.running.size === 0 || this.inline !== undefined) return;
    const reported = (this.out as NodeJS.WriteStream).columns ?? 0;
    const columns = reported >= 20 ? reported : 100;
    const fit = (line: string): string => (line.length > columns - 1 ? `${line.slice(0, columns - 2)}…` : line);
    const entries = [...this.running.values()];
    const name = (entry: Running): string => (entry.count > 1 ? `${entry.label} ×${entry.count}` : entry.label);
    let lines: string[];
    if (entries.every((entry) => entry.characters === 0)) lines = [`… running: ${entries.map(name).join(", ")}`];
    else {
      lines = entries
        .slice(0, MAX_LANES)
        .map((entry) => `… ${name(entry)} · ${formatNumber(entry.characters)} characters so far`);
      if (entries.length > MAX_LANES) lines.push(`… and ${entries.length - MAX_LANES} more`);
    }
    this.pause();
    this.out.write(lines.map((line) => this.style.dim(fit(line))).join("\n"));
    this.statusLines = lines.length;
  }

  private summary(ok: boolean, time: number, usage: readonly Usage[]): string {
    const sum = (field: (entry: Usage) => number | undefined): number =>
      usage.reduce((total, entry) => total + (field(entry) ?? 0), 0);
    const written = sum((entry) => entry.cacheWriteTokens);
    const read = sum((entry) => entry.cacheReadTokens);
    const cached = [
      ...(written === 0 ? [] : [`${formatNumber(written)} cache write`]),
      ...(read === 0 ? [] : [`${formatNumber(read)} cache read`]),
    ];
    const cost = estimateCost(usage);
    const parts = [
      `${ok ? "done" : "stopped"} in ${(time / 1000).toFixed(1)} s`,
      `${this.sessions} session${this.sessions === 1 ? "" : "s"}${this.replayed === 0 ? "" : ` (${this.replayed} replayed)`}`,
      `${[`${formatNumber(sum((entry) => entry.inputTokens))} input`, ...cached, `${formatNumber(sum((entry) => entry.outputTokens))} output`].join(" + ")} tokens`,
      ...(cost === undefined ? [] : [`≈ $${cost.toFixed(cost < 1 ? 4 : 2)}`]),
    ];
    return (ok ? this.style.green : this.style.red)(parts.join(" · "));
  }
}

/**
 * The event with its texts as a line of narration may show them: a judgment's reason and an error
 * come from the model, a label from the program, and a narration line is a report (printable.ts),
 * so none may carry an escape sequence (an OSC 52 clipboard write, an OSC 8 link, a cleared screen)
 * to the terminal, or to the log a terminal later shows. Streamed text is the answer itself: it
 * keeps its bytes when piped (`forStream` where it is written).
 */
function shownEvent(event: RunEvent): RunEvent {
  const shown: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(event))
    shown[name] =
      event.type === "delta" && name === "text"
        ? value
        : typeof value === "string"
          ? terminalText(value)
          : Array.isArray(value)
            ? value.map((item: unknown) => (typeof item === "string" ? terminalText(item) : item))
            : value;
  return shown as unknown as RunEvent; // The same fields, each string made printable.
}

/** Where an event's step is in the program: the narration's lanes. */
function siteKey(event: RunEvent): string {
  return `${event.source ?? ""}:${event.at?.line}:${event.at?.column}`;
}

/** What the runtime did about an unexpected answer, as the narration says it. */
const ANSWER_ACTIONS: Readonly<Record<AnswerAction, string>> = {
  reask: "asked again",
  continue: "continued, the answer was cut off",
  "tool-error": "refused a tool it was not offered",
  keep: "kept the answer cut off at max_tokens",
  fail: "failed",
};

/** All tokens of a session's calls, cached ones included. */
function tokens(usage: readonly Usage[]): number {
  return usage.reduce(
    (sum, entry) =>
      sum + entry.inputTokens + (entry.cacheWriteTokens ?? 0) + (entry.cacheReadTokens ?? 0) + entry.outputTokens,
    0,
  );
}

/**
 * `12,345`. A whole number is grouped by hand: the first `toLocaleString` of a process loads ICU's
 * locale data, about 40 ms of a one-session run's start-up.
 */
function formatNumber(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString("en-US");
  return `${value < 0 ? "-" : ""}${String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, ",")}`;
}
