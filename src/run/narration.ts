/**
 * What `prosec run` shows while a program runs, from the runtime's events (prose.md's narration):
 *
 * - `live` (a terminal): a line per finished session, judgment, parallel block and loop iteration,
 *   under a status line that names the sessions in flight;
 * - `plain` (not a terminal): quiet; the run id first (`--resume` and `prosec test --save` need it), then
 *   finished sessions, judgments, unexpected model answers and errors only, no colour;
 * - `json`: every event as one JSON line, for other programs to read.
 *
 * Both text modes end with the totals: time, sessions, tokens and an estimated cost.
 */
import type { AnswerAction, RunEvent, Usage } from "../../runtime/index.js";
import { estimateCost } from "./cost.js";

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

export function createNarrator(mode: NarrationMode, out: NodeJS.WritableStream, color: boolean): Narrator {
  if (mode === "json")
    return { event: (event) => void out.write(`${JSON.stringify(event)}\n`), pause: () => undefined };
  return new TextNarrator(mode === "live", out, color ? colorStyle : plainStyle);
}

class TextNarrator implements Narrator {
  private readonly running = new Map<string, { label: string; count: number }>();
  private sessions = 0;
  private replayed = 0;
  private statusShown = false;
  private runShown = false;

  constructor(
    private readonly live: boolean,
    private readonly out: NodeJS.WritableStream,
    private readonly style: Style,
  ) {}

  event(event: RunEvent): void {
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
      case "session-end": {
        this.track(event, -1, event.label);
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
      case "error":
        // A failed step never ends: nothing is running any more once the run reports its error.
        this.running.clear();
        this.line(`${style.red("✗")} ${event.message}`);
        break;
      case "resumed":
        this.line(`${style.cyan("↺")} ${event.summary}`);
        break;
      case "run-end":
        this.running.clear();
        this.line(this.summary(event.ok, event.time, event.usage));
        break;
      default:
        return;
    }
    this.drawStatus();
  }

  pause(): void {
    if (!this.statusShown) return;
    this.out.write("\r\x1b[K");
    this.statusShown = false;
  }

  private track(event: RunEvent, change: number, label: string): void {
    const key = `${event.at?.line}:${event.at?.column}`;
    const entry = this.running.get(key) ?? { label, count: 0 };
    entry.count += change;
    if (entry.count > 0) this.running.set(key, entry);
    else this.running.delete(key);
  }

  private line(text: string): void {
    this.pause();
    this.out.write(`${text}\n`);
  }

  private drawStatus(): void {
    if (!this.live || this.running.size === 0) return;
    const names = [...this.running.values()].map((entry) =>
      entry.count > 1 ? `${entry.label} ×${entry.count}` : entry.label,
    );
    const reported = (this.out as NodeJS.WriteStream).columns ?? 0;
    const columns = reported >= 20 ? reported : 100;
    const status = `… running: ${names.join(", ")}`;
    this.pause();
    this.out.write(this.style.dim(status.length > columns - 1 ? `${status.slice(0, columns - 2)}…` : status));
    this.statusShown = true;
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

function formatNumber(value: number): string {
  return value.toLocaleString("en-US");
}
