/**
 * Runs an eval's cases: the eval program (compiled once, its asserts scored) once per case and repeat,
 * at most `concurrency` at a time (p-map), each a normal durable run in `.prose/runs/` tagged with the
 * eval's id. A finished case is appended to the eval's results at once and never run again; a case
 * cut off (a kill, Ctrl-C, the budget) resumes its run next time, replaying the steps it had paid for.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import pMap from "p-map";
import {
  BudgetExceeded,
  ProseError,
  WaitingForInput,
  type RunEvent,
  type RunOptions,
  type Value,
} from "../../runtime/index.js";
import { formatBudget } from "../../runtime/cost.js";
import { readRunFile } from "../../runtime/stored-runs.js";
import type { ProgramModule } from "../run/load-program.js";
import type { AssertOutcome, CaseResult } from "./case-result.js";
import {
  appendResult,
  entryKey,
  readResults,
  runFolder,
  tagRun,
  type EvalManifest,
  type EvalRunEntry,
} from "./eval-folder.js";

export interface EvalRunOptions {
  readonly module: ProgramModule;
  readonly manifest: EvalManifest;
  /** The eval's folder (`.prose/evals/<id>/`). */
  readonly evalDir: string;
  readonly cwd: string;
  readonly concurrency: number;
  /** Dollars the whole eval may spend, across its processes. */
  readonly budget?: number;
  /** What each case's run gets besides its folder and inputs: how the model is reached, answer limits. */
  readonly runOptions?: (entry: EvalRunEntry) => RunOptions;
  /** Dollars of one case's static bound (Infinity or undefined when it has none), for sharing the budget. */
  readonly caseBound?: (entry: EvalRunEntry) => number | undefined;
  readonly signal?: AbortSignal;
  /** Told as each case finishes. */
  readonly onCase?: (result: CaseResult) => void;
}

export interface EvalRunOutcome {
  /** Every finished case, this process's and earlier ones', in the manifest's order. */
  readonly results: readonly CaseResult[];
  /** Why cases are left unfinished: the budget stopped them, or the eval was interrupted. */
  readonly stopped?: { readonly why: "budget" | "interrupted"; readonly message: string };
}

/** What a run folder's `spent.json` says it spent, all its processes together. */
export function spentByRun(runDir: string): { readonly dollars: number; readonly calls: number } {
  try {
    const spent = JSON.parse(readRunFile(join(runDir, "spent.json"))) as { dollars?: number; calls?: number };
    return { dollars: spent.dollars ?? 0, calls: spent.calls ?? 0 };
  } catch {
    return { dollars: 0, calls: 0 };
  }
}

export async function runEval(options: EvalRunOptions): Promise<EvalRunOutcome> {
  const { manifest, evalDir, cwd } = options;
  const finished = readResults(evalDir);
  const pending = manifest.runs.filter((entry) => !finished.has(entryKey(entry)));
  const budget = new EvalBudget(
    options.budget,
    // Everything the eval's runs spent so far, finished or cut off.
    manifest.runs.reduce((sum, entry) => sum + spentByRun(runFolder(cwd, entry.runId)).dollars, 0),
    options.concurrency,
  );
  let stopped: EvalRunOutcome["stopped"];
  const inner = new AbortController();
  const stop = (why: "budget" | "interrupted", message: string): void => {
    stopped ??= { why, message };
  };
  const onAbort = (): void => {
    stop("interrupted", "The eval was interrupted.");
    inner.abort(options.signal?.reason);
  };
  if (options.signal?.aborted === true) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await pMap(
      pending,
      async (entry) => {
        if (stopped !== undefined) return;
        const runDir = runFolder(cwd, entry.runId);
        const spentBefore = spentByRun(runDir).dollars;
        if (budget.exhausted()) {
          stop("budget", `The eval's budget of ${formatBudget(options.budget ?? 0)} is spent.`);
          return;
        }
        const share = budget.take(options.caseBound?.(entry));
        try {
          const result = await runCase(entry, runDir, spentBefore, share, options, inner.signal);
          if (result === undefined) return;
          appendResult(evalDir, result);
          finished.set(entryKey(entry), result);
          options.onCase?.(result);
        } catch (error) {
          if (!(error instanceof BudgetExceeded)) throw error;
          stop("budget", error.message);
        } finally {
          budget.release(share, spentByRun(runDir).dollars - spentBefore);
        }
      },
      { concurrency: options.concurrency },
    );
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  const results = manifest.runs.flatMap((entry) => {
    const result = finished.get(entryKey(entry));
    return result === undefined ? [] : [result];
  });
  return { results, ...(stopped === undefined ? {} : { stopped }) };
}

/** One case: its result, or undefined when it was interrupted (it resumes next time). */
async function runCase(
  entry: EvalRunEntry,
  runDir: string,
  spentBefore: number,
  share: number | undefined,
  options: EvalRunOptions,
  signal: AbortSignal,
): Promise<CaseResult | undefined> {
  const resume = existsSync(join(runDir, "run.json"));
  if (!resume) tagRun(runDir, { evalId: options.manifest.evalId, case: entry.case, repeat: entry.repeat });
  const asserts = new AssertCollector();
  const started = Date.now();
  const base = {
    case: entry.case,
    repeat: entry.repeat,
    runId: entry.runId,
  };
  const finish = (status: CaseResult["status"], error?: string): CaseResult => {
    const spent = spentByRun(runDir);
    return {
      ...base,
      status,
      asserts: asserts.outcomes(),
      ...(error === undefined ? {} : { error }),
      dollars: spent.dollars,
      calls: spent.calls,
      ms: Date.now() - started,
    };
  };
  const given = options.runOptions?.(entry) ?? {};
  try {
    await options.module.run(entry.inputs as { readonly [name: string]: Value }, {
      ...given,
      runId: entry.runId,
      runDir,
      resume,
      cwd: options.cwd,
      signal,
      onEvent: (event) => {
        asserts.observe(event);
        given.onEvent?.(event);
      },
      // The eval checked its bound as a whole; each run's meter keeps it to its share as it goes.
      ...(share === undefined ? {} : { budget: spentBefore + share, startOverBound: true }),
    });
    return finish("scored");
  } catch (error) {
    if (signal.aborted) return undefined;
    if (error instanceof BudgetExceeded) throw error;
    if (error instanceof WaitingForInput)
      return finish(
        "error",
        `The case waits for input ${error.questions.map((question) => `"${question.name}"`).join(", ")}: give it in the case's inputs.`,
      );
    if (error instanceof ProseError) return finish("error", error.message);
    return finish(
      "error",
      `prosec failed on this case (a bug): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * The asserts of a case, from its run's events: each scored `assert` event, with the judgment that
 * decided it (an `assert` judgment on its line just before). An assert reached more than once
 * (in a loop) passes when it held every time; its first failure is the one shown.
 */
class AssertCollector {
  private readonly byId = new Map<string, AssertOutcome>();
  private readonly judgments = new Map<string, { answer: string; reason: string }>();

  observe(event: RunEvent): void {
    // The programs an eval calls keep their asserts: their events are theirs, not the eval's.
    if (event.source !== undefined || event.at === undefined) return;
    // The judgment stands at its `**...**`, on the assert's line; the assert event at the statement.
    const site = String(event.at.line);
    if (event.type === "judgment" && event.asks === "assert")
      this.judgments.set(site, { answer: event.answer, reason: event.reason });
    if (event.type !== "assert") return;
    const judge = this.judgments.get(site);
    this.judgments.delete(site);
    const known = this.byId.get(event.id);
    if (known !== undefined && !known.passed) return;
    this.byId.set(event.id, {
      id: event.id,
      line: event.at.line,
      passed: event.passed,
      ...(event.message === undefined ? {} : { message: event.message }),
      ...(event.passed || judge === undefined ? {} : { judge }),
    });
  }

  outcomes(): AssertOutcome[] {
    return [...this.byId.values()];
  }
}

/**
 * The eval's budget shared among its runs. Each case starting takes a share: an equal part of what is
 * left for the cases that can run at once, or its static bound when that is more (and left); a case's
 * run may spend no more than its share (its meter stops it first), so the eval never spends more than
 * its budget. What a case did not spend goes back.
 */
class EvalBudget {
  private reserved = 0;

  constructor(
    private readonly total: number | undefined,
    private spent: number,
    private readonly slots: number,
  ) {}

  exhausted(): boolean {
    return this.total !== undefined && this.total - this.spent - this.reserved <= 0;
  }

  /** The case's share; undefined without a budget. */
  take(bound: number | undefined): number | undefined {
    if (this.total === undefined) return undefined;
    const left = this.total - this.spent - this.reserved;
    const share = Math.min(
      left,
      Math.max(left / this.slots, bound !== undefined && Number.isFinite(bound) ? bound : 0),
    );
    this.reserved += share;
    return share;
  }

  release(share: number | undefined, spent: number): void {
    if (share === undefined) return;
    this.reserved -= share;
    this.spent += spent;
  }
}
