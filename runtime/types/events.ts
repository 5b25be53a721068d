/**
 * The narration of a run: one event per step (`RunOptions.onEvent`), and the usage a model call reports.
 */
import type { Site } from "./program.js";

export interface RunEventBase {
  readonly at?: Site;
  /** The source file `at` is in, on the events of a program called from another (`Runtime.call`). */
  readonly source?: string;
  /** Milliseconds since the run started. */
  readonly time: number;
}

/**
 * Model usage of one call, summed per run in the `run-end` event. `inputTokens` are the input tokens
 * billed at the base rate; with prompt caching, `cacheWriteTokens` (billed 1.25x) and `cacheReadTokens`
 * (billed 0.1x) come on top: the request's whole input is the sum of the three.
 */
export interface Usage {
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheWriteTokens?: number;
  readonly cacheReadTokens?: number;
}

/**
 * What was wrong with a model's answer: text where the answer tool was forced, the tool called with
 * the wrong shape, cut off at `max_tokens`, a refusal, a call of a tool not offered, nothing at all.
 */
export type AnswerProblem =
  | "text"
  | "shape"
  | "max-tokens"
  | "refusal"
  | "unknown-tool"
  | "empty"
  /** A tool call whose id the conversation had already: answered with an error, not run. */
  | "duplicate-tool-id";

/** What the runtime did about an unexpected answer. */
export type AnswerAction = "reask" | "continue" | "tool-error" | "keep" | "fail";

/** How a step failed (failed-steps.ts): an API error, a refusal, an answer that failed validation, a time limit. */
export type FailureCause = "api-error" | "refusal" | "invalid-answer" | "timeout" | "error";

/** The narration: one event per step, for the CLI to display and for users to log. */
export type RunEvent =
  | (RunEventBase & { readonly type: "run-start"; readonly runId: string; readonly program: string })
  | (RunEventBase & { readonly type: "position"; readonly statement: string })
  | (RunEventBase & {
      readonly type: "session-start";
      readonly label: string;
      readonly agent?: string;
      readonly trail?: readonly string[];
    })
  | (RunEventBase & {
      readonly type: "session-end";
      readonly label: string;
      readonly usage: readonly Usage[];
      readonly replayed: boolean;
      /** The answer was kept although still cut off at `max_tokens` (`onTruncation: "keep"`). */
      readonly truncated?: true;
      /** The session's branch was cancelled (a lost race, a failed sibling): it has no answer. */
      readonly cancelled?: true;
    })
  | (RunEventBase & { readonly type: "binding"; readonly name: string; readonly preview: string })
  | (RunEventBase & {
      readonly type: "judgment";
      readonly asks?: JudgmentAsker | "choice";
      readonly question: string;
      readonly answer: string;
      readonly reason: string;
      readonly trail?: readonly string[];
    })
  | (RunEventBase & {
      readonly type: "extraction";
      readonly shape: "list" | "field" | "boolean";
      readonly method: "parse" | "model";
    })
  /** A list was read (`for x in`, a pipeline stage): its size, what a cost bound's `|items|` stands for. */
  | (RunEventBase & { readonly type: "list"; readonly items: number })
  | (RunEventBase & { readonly type: "parallel-start"; readonly branches: number })
  | (RunEventBase & { readonly type: "parallel-end"; readonly succeeded: number; readonly failed: number })
  | (RunEventBase & { readonly type: "loop-iteration"; readonly iteration: number })
  | (RunEventBase & {
      readonly type: "tool";
      readonly tool: string;
      readonly allowed: boolean;
      readonly detail: string;
      /** What the OS sandbox undid or refused of a command (protected names removed, proxy refusals). */
      readonly sandbox?: readonly string[];
    })
  /**
   * A model answer that was not what was asked for (docs/model-answers.md), and what the runtime did:
   * asked again, continued a cut answer, gave a tool error, kept a cut answer, or failed the step.
   */
  | (RunEventBase & {
      readonly type: "unexpected-answer";
      /** The session's label, or the question's ("The judgment", "Reading a list" ...). */
      readonly label: string;
      readonly problem: AnswerProblem;
      readonly action: AnswerAction;
      /** Which of the step's model answers this was (1-based). */
      readonly attempt: number;
      /** What was wrong, with what the model said (shortened). */
      readonly detail: string;
    })
  /**
   * Text of a session's answer as it arrives (`RunOptions.stream`), before its turn is finished: the
   * journal records finished turns only. `step` tells concurrent sessions apart (the step's site).
   */
  | (RunEventBase & {
      readonly type: "delta";
      readonly label: string;
      readonly step: string;
      readonly model: string;
      readonly text: string;
      /** The first text of a model request (a new turn, or the same turn sent again after `abandoned`). */
      readonly begins?: true;
    })
  /**
   * The text streamed since the turn's last request began will not be part of the answer: the stream
   * was cut (a dropped connection, an error event) and the request is sent again or to another model.
   */
  | (RunEventBase & {
      readonly type: "abandoned";
      readonly label: string;
      readonly step: string;
      readonly model: string;
      /** Characters of text given in `delta` events since the attempt began. */
      readonly characters: number;
      readonly reason: string;
    })
  /** A model could not answer (overloaded, rate-limited, not found): the call goes to the next model of its chain. */
  | (RunEventBase & {
      readonly type: "fallback";
      readonly label: string;
      readonly from: string;
      readonly to: string;
      /** `overloaded`, `rate-limited` or `not found`, and the server's message. */
      readonly reason: string;
    })
  /** A step failed and the program's `catch:` took its error: the run goes on (failed-steps.ts). */
  | (RunEventBase & {
      readonly type: "step-caught";
      readonly label: string;
      /** The error's text without its location (`catch as err` binds it with it). */
      readonly message: string;
      readonly cause: FailureCause;
      /** Replayed from the journal (a resumed run): the failure happened in an earlier process. */
      readonly replayed: boolean;
    })
  | (RunEventBase & { readonly type: "error"; readonly message: string })
  /**
   * An eval program's scored `assert` (`prosec eval`): whether it held. `id` names it across edits
   * (its message, else its structural position); `message` is the message as the run interpolated it.
   */
  | (RunEventBase & {
      readonly type: "assert";
      readonly id: string;
      readonly passed: boolean;
      readonly message?: string;
    })
  /** Something the person running the program should know, said once (commands without an OS sandbox). */
  | (RunEventBase & { readonly type: "notice"; readonly message: string })
  | (RunEventBase & {
      /** A resumed run of a changed program, at its end: what it reused and ran again. */
      readonly type: "resumed";
      /** `reused 14 steps; re-running 2 from line 40 (prompt changed), 3 new` */
      readonly summary: string;
      readonly reused: number;
      readonly rerun: number;
      /** Why the steps in `rerun` ran again, with how many for each reason (`model changed`: 2). */
      readonly rerunReasons: { readonly [reason: string]: number };
      readonly added: number;
    })
  /** The run stops waiting for these inputs (see `WaitingForInput`); `run-end` follows. */
  | (RunEventBase & {
      readonly type: "waiting";
      readonly questions: readonly {
        readonly name: string;
        readonly prompt: string;
        readonly line: number;
        readonly column: number;
        /** The source path of the program that asks (a called program's own file). */
        readonly program?: string;
        /** The input step's site (under the call's site for a called program's input). */
        readonly key: string;
        /** The name `prosec answer RUN <answer>=...` takes for it: `confirm`, else `gate.confirm`, else the key. */
        readonly answer: string;
      }[];
    })
  | (RunEventBase & {
      readonly type: "run-end";
      readonly ok: boolean;
      readonly usage: readonly Usage[];
      /** A program that declares no outputs returns its final result (prose.md), as text: its last top-level statement's value. */
      readonly result?: string;
    });

/** The construct a judgment answers for: what its answer does. */
export type JudgmentAsker = "if" | "elif" | "until" | "while" | "assert" | "condition";
