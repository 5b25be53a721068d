/**
 * A run's lifecycle: its id and folder, the limits checked before the first call, the deadline and
 * cancellation, and how it ends (`run-end`, the state folder closed as complete, waiting,
 * interrupted or failed).
 */
import { ANSWER_TOOL } from "../model/unexpected-answers.js";
import { join } from "node:path";
import { JournalStepStore, ResumeReport } from "../durable/durability.js";
import { safeName } from "../durable/files.js";
import { refuseLinks } from "../durable/folder-links.js";
import { RunFolder, RunFolderError } from "../durable/run-folder.js";
import type { RunStatus } from "../durable/state-file.js";
import { TraceWriter } from "../durable/trace-writer.js";
import { asEnvironmentError, EnvironmentError, ProseError, WaitingForInput } from "../errors.js";
import type { ProgramInfo, Runtime, RunOptions, Value } from "../types.js";
import { text } from "../values/expressions.js";
import { invalidLimits, refusalBeforeStart } from "../cost/budget-start.js";
import { RunCore } from "../kernel/core.js";
import { BudgetExceeded } from "../cost/meter.js";
import type { RunScope } from "../kernel/scope.js";
import { answerName } from "../durable/question-names.js";
import { callerOf, type Caller } from "./used-programs.js";
import { refusalBeforeResume } from "./rerun-preflight.js";
import { startTelemetry } from "../telemetry/run-telemetry.js";
import { newRunId } from "./run-id.js";

export class RunLifecycle implements RunScope {
  readonly core: RunCore;
  readonly runId: string;
  readonly runDir: string;
  private openFolder: RunFolder | undefined;
  private givenInputs: { readonly [name: string]: Value };
  private readonly caller: Caller | undefined;
  /** The final result of a program without outputs (`finalResult`), once its body has given it. */
  private finalValue: { readonly value: Value } | undefined;

  constructor(
    readonly program: ProgramInfo,
    inputs: { readonly [name: string]: Value },
    readonly options: RunOptions,
  ) {
    this.givenInputs = inputs;
    this.caller = callerOf(options);
    this.core = new RunCore(
      program,
      options,
      this.caller === undefined
        ? undefined
        : {
            core: this.caller.run.core,
            sitePrefix: this.caller.site,
            anchorPrefix: this.caller.anchor,
            structurePrefix: this.caller.structure,
          },
    );
    this.runId = this.caller?.run.runId ?? options.runId ?? newRunId(new Date());
    this.runDir =
      this.caller !== undefined
        ? join(this.caller.run.runDir, "imports", safeName(this.caller.folderName))
        : (options.runDir ?? join(options.cwd ?? process.cwd(), ".prose", "runs", this.runId));
  }

  get folder(): RunFolder | undefined {
    return this.openFolder;
  }

  /** The inputs answered ahead: the caller's, or a resumed run's as its folder recorded them. */
  get inputs(): { readonly [name: string]: Value } {
    return this.givenInputs;
  }

  /** Whether this run is a program called from another program's run. */
  get nested(): boolean {
    return this.caller !== undefined;
  }

  finalResult(value: Value): void {
    this.finalValue = { value };
    if (this.caller !== undefined) this.caller.finalResult = this.finalValue;
  }

  /** Runs the program's body: `run-start`, the body, `run-end` with the usage totals. */
  async execute<O>(runtime: Runtime, body: (runtime: Runtime) => Promise<O>): Promise<O> {
    const { core, options } = this;
    const onCancel = (): void => core.abort(options.signal?.reason ?? new ProseError("The run was cancelled."));
    options.signal?.addEventListener("abort", onCancel, { once: true });
    if (options.signal?.aborted) onCancel();
    const deadline =
      options.deadlineMs === undefined
        ? undefined
        : setTimeout(
            () =>
              core.abort(
                core.error(
                  `The run took longer than its deadline of ${options.deadlineMs} ms (RunOptions.deadlineMs).`,
                ),
              ),
            options.deadlineMs,
          );
    // A called program's spans are its caller's (core.ts): only a top-level run has a root span.
    if (this.caller === undefined)
      core.telemetry = startTelemetry(this.program, this.runId, (text) => core.redact(text), options.traceParent);
    core.emit({ type: "run-start", runId: this.runId, program: this.program.name });
    try {
      this.open();
      if (this.caller === undefined) this.checkBudget();
      const result = await body(runtime);
      // A branch whose record could not be written (a full disk) stopped the run, even where a
      // `parallel (on-fail: "continue")` let the body go on without it.
      if (core.root.signal.reason instanceof EnvironmentError) throw core.root.signal.reason;
      const final = this.finalValue?.value;
      const finalResult = final === undefined || final === null ? {} : { result: text(final) };
      this.reportResume();
      core.emit({ type: "run-end", ok: true, usage: core.totals.list(), ...finalResult });
      await this.close("complete");
      if (this.caller === undefined) core.telemetry.end("complete", core.totals.list());
      return result;
    } catch (error) {
      const failure =
        core.root.signal.aborted && core.root.signal.reason instanceof ProseError ? core.root.signal.reason : error;
      // Its stack and causes too: a DBOS run's error is written whole.
      core.secrets.redactError(failure);
      const message = failure instanceof Error ? failure.message : String(failure);
      const waiting = failure instanceof WaitingForInput ? failure : undefined;
      // A called program's failure (or wait) is reported once, by the run that called it.
      if (this.caller === undefined && waiting !== undefined) {
        core.emit({
          type: "waiting",
          questions: waiting.questions.map((question) => ({
            name: question.name,
            prompt: question.prompt,
            line: question.at.line,
            column: question.at.column,
            ...(question.source === undefined ? {} : { program: question.source }),
            key: question.key,
            answer: answerName(question, waiting.questions),
          })),
        });
      } else if (this.caller === undefined) {
        core.emit({
          type: "error",
          ...(failure instanceof ProseError && failure.line !== undefined
            ? { at: { line: failure.line, column: failure.column ?? 1 } }
            : {}),
          message,
        });
      }
      this.reportResume();
      core.emit({ type: "run-end", ok: false, usage: core.totals.list() });
      if (waiting !== undefined && this.caller === undefined) this.openFolder?.waitFor(waiting.questions);
      const status =
        waiting !== undefined
          ? "waiting"
          : core.root.signal.aborted || options.signal?.aborted === true
            ? "interrupted"
            : "failed";
      try {
        await this.close(status);
      } catch (closing) {
        // The machine that failed the run fails its last writes too: the run's failure says it already.
        if (!(failure instanceof EnvironmentError)) throw closing;
      }
      if (this.caller === undefined) core.telemetry.end(status, core.totals.list(), failure);
      throw failure;
    } finally {
      // MCP servers stop with the run, whatever its ending (a failure, Ctrl-C, SIGTERM, a wait).
      if (this.caller === undefined) await core.mcp.close();
      if (deadline !== undefined) clearTimeout(deadline);
      options.signal?.removeEventListener("abort", onCancel);
      if (this.caller !== undefined) this.caller.run.core.totals.add(core.totals.list());
    }
  }

  /** What a resumed run of a changed program reused and ran again. */
  private reportResume(): void {
    const report = this.core.durability instanceof JournalStepStore ? this.core.durability.report : undefined;
    if (report === undefined || this.caller !== undefined) return;
    if (!report.edited && report.rerun.length === 0) return;
    this.core.emit({
      type: "resumed",
      summary: report.summary(),
      reused: report.reused,
      rerun: report.rerun.length,
      rerunReasons: report.reasons(),
      added: report.added,
    });
  }

  private open(): void {
    const { options } = this;
    if (this.caller !== undefined) {
      this.openFolder = this.caller.run.folder?.child(this.runDir, this.program);
      // A called program edited since the run recorded its steps: unnamed steps keep their sites.
      const earlier = this.openFolder?.earlierTexts.get(this.program.source);
      if (earlier !== undefined) this.core.addresses.alignWith(earlier);
    } else if (options.runDir !== undefined) {
      try {
        refuseLinks(options.runDir);
        const opened = RunFolder.open(
          options.runDir,
          this.program,
          this.runId,
          this.givenInputs,
          options.resume === true,
          options.strict === true,
          this.core.telemetry.traceparent,
          // Decided before the first request (and before the folder changes), unless --rerun.
          options.resume === true &&
            options.rerun !== true &&
            options.journal === undefined &&
            options.durability === undefined
            ? (work, earlier) =>
                refusalBeforeResume(work, {
                  program: this.program,
                  ...earlier,
                  modelOf: (name) => this.core.model(name),
                })
            : undefined,
        );
        this.openFolder = opened.folder;
        const journal = opened.folder.journal;
        if (journal !== undefined && options.journal === undefined && options.durability === undefined)
          this.core.approvalAnswers = async (key) => (await journal.get(key))?.value;
        if (options.resume === true) this.core.telemetry.linkResumed(opened.traceparent);
        this.givenInputs = opened.inputs;
        // A failed write of the run's state (a full disk) stops the run where its journal ends.
        const stop = (error: unknown): void => this.core.abort(error);
        opened.folder.onFailure(stop);
        try {
          this.core.trace = new TraceWriter(options.runDir, (text) => this.core.redact(text));
        } catch (error) {
          throw asEnvironmentError(error, `Opening the trace of run folder ${options.runDir}`);
        }
        this.core.trace.onFailure = stop;
        if (options.journal === undefined && options.durability === undefined) {
          // A changed program's steps are matched by structural key: sites aligned with the recorded text.
          if (opened.changes.previous !== undefined) this.core.addresses.alignWith(opened.changes.previous);
          this.core.addresses.fingerprinted = true;
          // A resumed run accounts for what it reused and ran again (said when something changed).
          this.core.durability = new JournalStepStore(
            opened.folder.journal!,
            options.resume === true ? new ResumeReport(opened.changes.edited) : undefined,
            options.rerun === true,
          );
        }
      } catch (error) {
        if (error instanceof RunFolderError) throw this.core.error(error.message);
        throw error;
      }
    } else if (options.resume === true) {
      throw this.core.error("resume: true needs the runDir of the run to continue (RunOptions.runDir).");
    }
    // A store that waits for answers (DBOS) waits for approvals too: the call's step waits, and runs
    // with the answer delivered (dbos/session-steps.ts); nothing is recorded for the asker to read.
    if (this.caller === undefined && this.core.durability.awaitAnswer !== undefined)
      this.core.approvalAnswers = () => Promise.resolve(undefined);
    const folder = this.openFolder;
    if (folder !== undefined) this.core.observe((event) => folder.observe(event));
    if (folder !== undefined && this.caller === undefined) {
      const spent = folder.readSpent();
      if (spent !== undefined) this.core.meter.restore(spent);
      this.core.meter.onSpent = (total) => folder.recordSpent(total);
    }
  }

  /** Before the first call: limits that cannot be kept refuse the run (budget-start.ts). */
  private checkBudget(): void {
    const { core, options } = this;
    const invalid = invalidLimits(options);
    if (invalid !== undefined) throw core.error(invalid);
    // A typed session's and a filter's verdict come through a tool of this name (DIALECT.md, "Typed results").
    if (options.tools?.some((tool) => tool.name === ANSWER_TOOL))
      throw core.error(
        `RunOptions.tools: the tool name "${ANSWER_TOOL}" is reserved for sessions' answers; rename the tool.`,
      );
    const refusal = refusalBeforeStart(
      this.program.cost,
      this.givenInputs,
      options,
      core.meter.prices,
      (name) => core.model(name),
      core.models.chains,
    );
    if (refusal === undefined) return;
    const error = new BudgetExceeded(refusal.reason, { file: this.program.source }, refusal.remedy);
    core.abort(error);
    throw error;
  }

  private async close(status: RunStatus): Promise<void> {
    // A called program's files are settled and flushed with its caller's.
    if (this.openFolder === undefined || this.caller !== undefined) return;
    this.core.trace?.close();
    await this.openFolder.close(status);
  }
}
