/**
 * The answers of a scripted model, and which step each one names.
 *
 * A key names steps by, from most to least specific:
 *
 *   `judge@12:4`, `session@7`        a call site: kind @ line [: column] of the `.prose` file
 *   `research`                        a binding name: the session bound to it (or an input's name)
 *   `**ready to publish**`            a judgment or choice whose condition contains the text
 *                                     (case and spacing ignored)
 *
 * Any key may start with a program's name and `/` (`critique/feedback`) to name only steps of that
 * program, when a workflow calls another. Binding names and condition texts survive edits around a
 * step; a call site moves with its line, so prefer the others where they are unique.
 */
import type { Site, Value } from "../index.js";

/** The model-facing steps a script answers. */
export type ScriptedKind = "session" | "judge" | "choose" | "extract";

/** A step as the script sees it: what a function answer gets, and what each recorded request names. */
export interface ScriptedStep {
  readonly kind: ScriptedKind;
  /** The step's site, as the journal writes it (its `key`) (`/parallel@8:1#0/b1/session@10:7#0`). */
  readonly key: string;
  /** Its content anchor (`/parallel:@1c0ffee5#0/b1/session:brief@3f2a9c1e#0`). */
  readonly anchor: string;
  readonly at: Site;
  /** The name of the program the step is in, and its source path. */
  readonly program: string;
  readonly source: string;
  /** The name the session's result is bound to. */
  readonly binding?: string;
  /** A session's task, a judgment's condition, a choice's criteria, the text an extraction reads. */
  readonly text: string;
  /** A choice's option labels. */
  readonly options?: readonly string[];
  /** How many times the answer chosen for this step was used before (0 the first time). */
  readonly call: number;
}

const SEQUENCE = Symbol("prosec.testing.sequence");
const TURNS = Symbol("prosec.testing.turns");

/** One model turn of a session: its final reply, or tool calls that the runtime then really runs. */
export type Turn = string | ToolCall | readonly ToolCall[];

export interface ToolCall {
  readonly tool: string;
  readonly input: { readonly [key: string]: Value };
}

/** Several model turns of one session (a tool-use loop), the last one its reply. */
export interface Turns {
  readonly [TURNS]: readonly Turn[];
}

/** Successive answers for a step reached again and again (a loop's condition). */
export interface Sequence {
  readonly [SEQUENCE]: readonly Answer[];
}

/**
 * An answer: a session's reply (text; other values are shown as `text()` shows them), a judgment's
 * `true`/`false` (or `{ answer, reason }`), a choice's option label, an extraction's value; or
 * `turns(...)`, `sequence(...)`, or a function of the step.
 */
export type Answer = Value | Turns | Sequence | ((step: ScriptedStep) => Answer);

export type Answers = { readonly [key: string]: Answer };

export function toolCall(tool: string, input: { readonly [key: string]: Value } = {}): ToolCall {
  return { tool, input };
}

/** A session's model turns in order: tool calls (run for real, under the session's permissions), then its reply. */
export function turns(...steps: Turn[]): Turns {
  if (steps.length === 0) throw new TypeError("turns() needs at least the final reply");
  return { [TURNS]: steps };
}

/** The first answer the first time the step is reached, the second the second time, ... */
export function sequence(...answers: Answer[]): Sequence {
  return { [SEQUENCE]: answers };
}

export function turnsOf(answer: unknown): readonly Turn[] | undefined {
  return typeof answer === "object" && answer !== null && TURNS in answer ? (answer as Turns)[TURNS] : undefined;
}

/** How well `key` names `step`: 0 not at all, then binding/condition 1, call site 2 (more specific wins). */
export function specificity(key: string, step: Omit<ScriptedStep, "call">): number {
  const slash = key.indexOf("/");
  if (slash > 0 && !key.startsWith("**")) {
    if (key.slice(0, slash) !== step.program) return 0;
    key = key.slice(slash + 1);
  }
  const site = /^(session|judge|choose|extract)@(\d+)(?::(\d+))?$/.exec(key);
  if (site !== null)
    return site[1] === step.kind &&
      Number(site[2]) === step.at.line &&
      (site[3] === undefined || Number(site[3]) === step.at.column)
      ? 2
      : 0;
  const condition = /^\*\*([\s\S]+)\*\*$/.exec(key);
  if (condition !== null)
    return (step.kind === "judge" || step.kind === "choose") && loose(step.text).includes(loose(condition[1]!)) ? 1 : 0;
  return step.binding === key ? 1 : 0;
}

/** The answers of a script, handed out step by step. */
export class AnswerBook {
  private readonly uses = new Map<string, number>();

  constructor(private readonly answers: Answers) {}

  /** The key whose answer `step` gets, or undefined when none names it. */
  keyFor(step: Omit<ScriptedStep, "call">): string | undefined {
    let best: { key: string; score: number } | undefined;
    for (const key of Object.keys(this.answers)) {
      const score = specificity(key, step);
      if (score > (best?.score ?? 0)) best = { key, score };
    }
    return best?.key;
  }

  /** The answer under `key` for this use of it: sequences advance, functions are called. */
  take(key: string, step: Omit<ScriptedStep, "call">): { readonly step: ScriptedStep; readonly answer: Answer } {
    const call = this.uses.get(key) ?? 0;
    this.uses.set(key, call + 1);
    const counted = { ...step, call };
    return { step: counted, answer: settle(this.answers[key] as Answer, counted, `the answer "${key}"`) };
  }

  /** Keys no step has used. */
  unused(): string[] {
    return Object.keys(this.answers).filter((key) => !this.uses.has(key));
  }
}

/** `answer` with its sequences and functions resolved for `step`. */
export function settle(answer: Answer, step: ScriptedStep, name: string): Answer {
  let current = answer;
  for (;;) {
    if (typeof current === "function") {
      current = current(step);
    } else if (typeof current === "object" && current !== null && SEQUENCE in current) {
      const list = (current as Sequence)[SEQUENCE];
      if (step.call >= list.length)
        throw new Error(
          `${name} is a sequence of ${list.length}, and the step was reached a ${ordinal(step.call + 1)} time.`,
        );
      current = list[step.call]!;
    } else {
      return current;
    }
  }
}

function loose(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}
