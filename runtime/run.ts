/**
 * A run of a compiled program: the `Runtime` its body receives.
 */
import { randomBytes } from "node:crypto";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import pMap from "p-map";
import { RunCore } from "./core.js";
import { JournalDurability } from "./durability.js";
import { RunFolder, RunFolderError } from "./durable/run-folder.js";
import { invalidLimits, refusalBeforeStart } from "./budget-start.js";
import type { RunStatus } from "./durable/state-file.js";
import { isAbortError, ProseError, WaitingForInput } from "./errors.js";
import { BudgetExceeded } from "./meter.js";
import { safeName } from "./files.js";
import {
  extractField,
  extractFields,
  extractList,
  fieldsOf,
  extractTruth,
  fieldWithoutModel,
  listWithoutModel,
  truthyWithoutModel,
} from "./extraction.js";
import { choose, judge } from "./judgment.js";
import { memoryFolder, readMemory, recordSession } from "./memory.js";
import { race, startAll, type BlockEnded, type BranchStarter, type RaceOptions } from "./parallel.js";
import { withRetries } from "./retry.js";
import { effectiveSettings, runAgent, sessionAsk, sessionLabel, sessionTask } from "./session.js";
import { sharedController } from "./signals.js";
import { runInContext, type StepContext } from "./step-context.js";
import { Trail } from "./trail.js";
import type {
  AgentDefinition,
  Branch,
  FailurePolicy,
  InputDefinition,
  JoinedBranches,
  JudgmentAsker,
  LoopSequence,
  ParallelOptions,
  ParallelResult,
  ProgramInfo,
  RacedBranches,
  Runtime,
  RunOptions,
  SessionRequest,
  Site,
  StepAsk,
  Value,
} from "./types.js";
import { text } from "./values.js";

const DEFAULT_MAX_DEPTH = 100;
const DEFAULT_RETRY_DELAY_MS = 1000;

/** A program called from another program's run (`Runtime.call`). */
interface Caller {
  readonly run: Run;
  /** The call's step key: the called program's steps are recorded under it. */
  readonly key: string;
  /** The call's content anchor, the prefix of the called program's anchors. */
  readonly anchor: string;
  /** Its folder under the caller's `imports/`. */
  readonly folderName: string;
  /** Set by a called program that declares no outputs: what the call returns instead of `{}`. */
  finalResult?: { readonly value: Value };
}

/** Options objects made by `Runtime.call`, so that `startRun` knows the run it starts is a nested one. */
const callers = new WeakMap<RunOptions, Caller>();

export class Run implements Runtime {
  readonly core: RunCore;
  readonly runId: string;
  readonly runDir: string;
  /** The durable state folder (with `RunOptions.runDir`, or inside a durable caller's). */
  private folder: RunFolder | undefined;
  private inputs: { readonly [name: string]: Value };
  private readonly caller: Caller | undefined;
  private executionIds = 0;
  private readonly memoryWrites = new Map<string, Promise<void>>();
  private readonly callCounts = new Map<string, number>();
  private readonly extractions = new Map<string, Promise<Value>>();
  /** Inputs whose first occurrence was reached: an answer given ahead answers only that one. */
  private readonly reachedInputs = new Set<string>();
  /** The final result of a program without outputs (`finalResult`), once its body has given it. */
  private finalValue: { readonly value: Value } | undefined;

  constructor(
    readonly program: ProgramInfo,
    inputs: { readonly [name: string]: Value },
    readonly options: RunOptions,
  ) {
    this.inputs = inputs;
    this.caller = callers.get(options);
    this.core = new RunCore(
      program,
      options,
      this.caller === undefined
        ? undefined
        : { core: this.caller.run.core, keyPrefix: this.caller.key, anchorPrefix: this.caller.anchor },
    );
    this.runId = this.caller?.run.runId ?? options.runId ?? newRunId(new Date());
    this.runDir =
      this.caller !== undefined
        ? join(this.caller.run.runDir, "imports", safeName(this.caller.folderName))
        : (options.runDir ?? join(options.cwd ?? process.cwd(), ".prose", "runs", this.runId));
  }

  /** Runs the program's body: `run-start`, the body, `run-end` with the usage totals. */
  async execute<O>(body: (runtime: Runtime) => Promise<O>): Promise<O> {
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
    core.emit({ type: "run-start", runId: this.runId, program: this.program.name });
    try {
      this.openFolder();
      if (this.caller === undefined) this.checkBudget();
      const result = await runInContext(core.root, () => body(this));
      const final = this.finalValue?.value;
      const finalResult = final === undefined || final === null ? {} : { result: text(final) };
      core.emit({ type: "run-end", ok: true, usage: core.totals.list(), ...finalResult });
      await this.closeFolder("complete");
      return result;
    } catch (error) {
      const failure =
        core.root.signal.aborted && core.root.signal.reason instanceof ProseError ? core.root.signal.reason : error;
      const redacted = failure instanceof Error ? core.redact(failure.message) : undefined;
      if (failure instanceof Error && redacted !== failure.message)
        Object.defineProperty(failure, "message", { value: redacted });
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
      core.emit({ type: "run-end", ok: false, usage: core.totals.list() });
      if (waiting !== undefined && this.caller === undefined) this.folder?.waitFor(waiting.questions);
      await this.closeFolder(
        waiting !== undefined
          ? "waiting"
          : core.root.signal.aborted || options.signal?.aborted === true
            ? "interrupted"
            : "failed",
      );
      throw failure;
    } finally {
      if (deadline !== undefined) clearTimeout(deadline);
      options.signal?.removeEventListener("abort", onCancel);
      if (this.caller !== undefined) this.caller.run.core.totals.add(core.totals.list());
    }
  }

  private openFolder(): void {
    const { options } = this;
    if (this.caller !== undefined) {
      this.folder = this.caller.run.folder?.child(this.runDir, this.program);
    } else if (options.runDir !== undefined) {
      try {
        const opened = RunFolder.open(options.runDir, this.program, this.runId, this.inputs, options.resume === true);
        this.folder = opened.folder;
        this.inputs = opened.inputs;
        if (options.journal === undefined && options.durability === undefined)
          this.core.durability = new JournalDurability(opened.folder.journal!);
      } catch (error) {
        if (error instanceof RunFolderError) throw this.core.error(error.message);
        throw error;
      }
    } else if (options.resume === true) {
      throw this.core.error("resume: true needs the runDir of the run to continue (RunOptions.runDir).");
    }
    const folder = this.folder;
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
    const reason = refusalBeforeStart(this.program.cost, this.inputs, options, core.meter.prices, (name) =>
      core.model(name),
    );
    if (reason === undefined) return;
    const error = new BudgetExceeded(reason, { file: this.program.source });
    core.abort(error);
    throw error;
  }

  private async closeFolder(status: RunStatus): Promise<void> {
    // A called program's files are settled and flushed with its caller's.
    if (this.folder === undefined || this.caller !== undefined) return;
    await this.folder.close(status);
  }

  session(request: SessionRequest): Promise<string> {
    return this.agentSession(request, false);
  }

  resume(agent: AgentDefinition, request: SessionRequest): Promise<string> {
    return this.agentSession({ ...request, agent }, true);
  }

  private async agentSession(request: SessionRequest, resume: boolean): Promise<string> {
    const { core } = this;
    const label = sessionLabel(request);
    const agent = request.agent?.name;
    const settings = effectiveSettings(request);
    const folder =
      agent === undefined
        ? undefined
        : memoryFolder(agent, settings.persist, {
            cwd: this.cwd,
            runDir: this.runDir,
            homeDir: this.options.homeDir ?? homedir(),
          });
    if (resume && folder === undefined)
      throw core.error(
        `resume: ${agent ?? "?"} needs an agent with persist: (true, project, user or a path).`,
        request.at,
        label,
      );
    if (folder !== undefined)
      this.folder?.agent(agent!, persistScope(settings.persist), relative(this.runDir, folder) || ".");
    const context = core.context;
    // With `context:` (even `[]`) a session is given exactly that; without, it sees the trail.
    const trail = settings.context === undefined ? context.trail.entries() : [];
    if (core.listening)
      core.emit({
        type: "session-start",
        at: request.at,
        label,
        ...(agent === undefined ? {} : { agent }),
        trail: trail.map((entry) => entry.source),
      });
    const block = context.block;
    const policy = {
      retries: settings.retry ?? 0,
      backoff: settings.backoff ?? "none",
      baseDelayMs: this.options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
    };
    const result = await core.step("session", request.at, label, sessionAsk(request, resume), (signal) =>
      withRetries(policy, signal, async () => {
        const memory =
          resume && folder !== undefined ? { agent: agent!, content: await readMemory(folder) } : undefined;
        let saved: { memory: string; summary: string } | undefined;
        const outcome = await runAgent(
          core,
          {
            request,
            block,
            trail,
            ...(memory === undefined ? {} : { memory }),
            ...(folder === undefined
              ? {}
              : { onMemory: (m: string, s: string) => void (saved = { memory: m, summary: s }) }),
          },
          signal,
        );
        if (folder !== undefined) {
          const record = core.secrets.redactDeep({
            agent: agent!,
            prompt: sessionTask(request),
            memory: saved?.memory,
            summary: saved?.summary ?? outcome.text.slice(0, 2000),
            timestamp: new Date(),
          });
          await this.inTurn(folder, () => recordSession(folder, record));
        }
        return { value: outcome.text, usage: outcome.usage };
      }),
    );
    if (core.listening)
      core.emit({ type: "session-end", at: request.at, label, usage: result.usage, replayed: result.replayed });
    if (request.binding === undefined) this.folder?.anonymous(request.at, result.value, block?.executionId);
    if (request.unbound === true) context.trail.add(label, result.value);
    return result.value;
  }

  keep<T extends Value>(source: string, value: T): T {
    this.core.context.trail.add(source, value);
    return value;
  }

  finalResult(value: Value): void {
    this.finalValue = { value };
    if (this.caller !== undefined) this.caller.finalResult = this.finalValue;
  }

  loop(): LoopSequence {
    const context = this.core.context;
    const enclosing = context.trail;
    const trail = enclosing.nested();
    context.trail = trail;
    let started = false;
    return {
      next: () => {
        if (started) trail.nextIteration();
        started = true;
      },
      end: () => {
        context.trail = enclosing;
      },
    };
  }

  items(): LoopSequence {
    const context = this.core.context;
    const enclosing = context.trail;
    return {
      next: () => {
        context.trail = enclosing.nested();
      },
      end: () => {
        context.trail = enclosing;
      },
    };
  }

  async judge(
    at: Site,
    condition: string,
    scope: { readonly [name: string]: Value },
    asks: JudgmentAsker = "condition",
  ): Promise<boolean> {
    const ask = { text: condition, details: () => ({ condition, scope, asks }) };
    const trail = this.core.context.trail.entries();
    const result = await this.core.step("judge", at, "The judgment", ask, (signal) =>
      judge(this.core, { condition, asks, scope, trail }, signal),
    );
    this.core.emit({
      type: "judgment",
      at,
      asks,
      question: condition,
      answer: result.value ? "yes" : "no",
      reason: result.reason ?? "",
      trail: trail.map((entry) => entry.source),
    });
    return result.value;
  }

  async choose(
    at: Site,
    criteria: string,
    options: readonly string[],
    scope: { readonly [name: string]: Value },
  ): Promise<number> {
    if (options.length === 0) throw this.core.error("choice has no options.", at);
    const ask = { text: criteria, options, details: () => ({ criteria, options, scope }) };
    const trail = this.core.context.trail.entries();
    const result = await this.core.step("choose", at, "The choice", ask, (signal) =>
      choose(this.core, { criteria, options, scope, trail }, signal),
    );
    this.core.emit({
      type: "judgment",
      at,
      asks: "choice",
      question: criteria,
      answer: options[result.value] ?? String(result.value),
      reason: result.reason ?? "",
      trail: trail.map((entry) => entry.source),
    });
    return result.value;
  }

  /**
   * An input: an answer given ahead (the run's inputs) answers its first occurrence; an occurrence
   * after that, or one not answered ahead, is asked (`onInput`, or on DBOS a message to the run),
   * and with no one to ask the run waits for input. Answers asked for are steps, so a resumed run
   * replays them; the answer `prosec answer` records is one.
   */
  async input(at: Site, definition: InputDefinition): Promise<Value> {
    const { name } = definition;
    if (!this.reachedInputs.has(name) && Object.hasOwn(this.inputs, name) && this.inputs[name] !== undefined) {
      this.reachedInputs.add(name);
      this.occurrence(at, name);
      return this.inputBinding(at, definition, this.inputs[name]);
    }
    // `input name: <value>`: not answered ahead, it takes its default and is never asked.
    if (Object.hasOwn(definition, "default") && !this.reachedInputs.has(name)) {
      this.reachedInputs.add(name);
      this.occurrence(at, name);
      return this.inputBinding(at, definition, definition.default ?? null);
    }
    this.reachedInputs.add(name);
    const ask = this.options.onInput;
    const durability = this.core.durability;
    if (ask === undefined && durability.awaitAnswer !== undefined) {
      const key = this.occurrence(at, name);
      const answer = await durability.awaitAnswer(
        key,
        { name, prompt: definition.prompt, key, at },
        definition.timeoutSeconds,
      );
      if (answer === undefined) throw this.timedOut(at, definition);
      return this.inputBinding(at, definition, answer.value);
    }
    const asked = { binding: name, text: definition.prompt, details: () => definition };
    const result = await this.core.step("input", at, `The input "${name}"`, asked, async (_signal, key) => {
      if (ask !== undefined) return { value: await ask(definition), usage: [] };
      const seconds = definition.timeoutSeconds;
      // A resumed run keeps the deadline its first wait set.
      const deadline =
        this.folder?.deadlineOf(key) ??
        (seconds === undefined ? undefined : new Date(Date.now() + seconds * 1000).toISOString());
      if (deadline !== undefined && Date.parse(deadline) <= Date.now()) throw this.timedOut(at, definition);
      throw new WaitingForInput(
        [{ name, prompt: definition.prompt, key, at, ...(deadline === undefined ? {} : { deadline }) }],
        this.program.source,
      );
    });
    return this.inputBinding(at, definition, result.value);
  }

  /**
   * Numbers an input's occurrence that is not a step (answered ahead, or awaited on DBOS) like one,
   * so later occurrences keep their keys and anchors; its key.
   */
  private occurrence(at: Site, name: string): string {
    const context = this.core.context;
    context.nextAnchor(this.core.anchors.of("input", at, name));
    return context.nextKey("input", at);
  }

  /** An input whose `(timeout: N)` passed unanswered: an error, which a `catch:` may handle. */
  private timedOut(at: Site, definition: InputDefinition): ProseError {
    return this.core.error(
      `No answer to the input "${definition.name}" came within its timeout of ${definition.timeoutSeconds} s.`,
      at,
    );
  }

  /** Rethrows what a program's `catch:` must not handle: a run waiting for input is not an error. */
  catchable(error: unknown): void {
    if (error instanceof WaitingForInput) throw error;
  }

  private inputBinding(at: Site, definition: InputDefinition, value: Value): Value {
    this.folder?.binding(at, definition.name, value, this.core.context.block?.executionId, "input");
    return value;
  }

  async call<O extends Value>(
    at: Site,
    name: string,
    run: (inputs: never, options?: RunOptions) => Promise<O>,
    inputs: { readonly [name: string]: Value },
  ): Promise<O> {
    const context = this.core.context;
    const key = context.nextKey(`use:${name}`, at);
    const anchor = `${context.anchorPath}/${context.nextAnchor(this.core.anchors.of(`use:${name}`, at))}`;
    const count = (this.callCounts.get(name) ?? 0) + 1;
    this.callCounts.set(name, count);
    const options: RunOptions = { ...this.options, signal: context.signal };
    const caller: Caller = { run: this, key, anchor, folderName: count === 1 ? name : `${name}__${count}` };
    callers.set(options, caller);
    // An argument may be any value (a list, a record): the called program's `Inputs` types what apps pass.
    const outputs = await run(inputs as never, options);
    // A program without outputs returns its final result (DIALECT.md, the `use` rule).
    return caller.finalResult === undefined ? outputs : (caller.finalResult.value as O);
  }

  branches<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly onFail?: P },
    branches: T,
  ): JoinedBranches<T, P> {
    const { context, start } = this.blockStart("parallel", at, branches.length);
    const ended: BlockEnded = (succeeded, failed) => this.core.emit({ type: "parallel-end", at, succeeded, failed });
    const promises = startAll(
      options.onFail,
      branches.length,
      context.signal,
      (index, signal) => start(branches[index]!, index, signal),
      ended,
    );
    return promises as unknown as JoinedBranches<T, P>;
  }

  first<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly onFail?: P },
    branches: T,
  ): Promise<RacedBranches<T, P>> {
    return this.race(at, { ...options, join: "first" }, branches) as Promise<RacedBranches<T, P>>;
  }

  any<const T extends readonly Branch[], P extends FailurePolicy = "fail-fast">(
    at: Site,
    options: { readonly count?: number; readonly onFail?: P },
    branches: T,
  ): Promise<RacedBranches<T, P>> {
    return this.race(at, { ...options, join: "any" }, branches) as Promise<RacedBranches<T, P>>;
  }

  async parallel(at: Site, options: ParallelOptions, branches: readonly Branch[]): Promise<ParallelResult> {
    const { join, ...rest } = options;
    if (join === "first" || join === "any") return this.race(at, { ...rest, join }, branches);
    return Promise.all(this.branches(at, rest, branches));
  }

  private async race(at: Site, options: RaceOptions, branches: readonly Branch[]): Promise<Value[]> {
    const { context, start } = this.blockStart("parallel", at, branches.length);
    const outcome = await race(options, branches, context.signal, start);
    this.core.emit({ type: "parallel-end", at, succeeded: outcome.succeeded, failed: outcome.failed });
    return outcome.results;
  }

  /** A `parallel:` block's start: its segment and anchor, and how each branch runs in a context of its own. */
  private blockStart(kind: "parallel", at: Site, count: number): { context: StepContext; start: BranchStarter } {
    const context = this.core.context;
    const segment = context.nextSegment(kind, at);
    const anchor = context.nextAnchor(this.core.anchors.of(kind, at));
    this.core.emit({ type: "parallel-start", at, branches: count });
    const start: BranchStarter = (branch, index, signal) => {
      const child = context.child(
        `${segment}/b${index}`,
        signal,
        context.block,
        `${anchor}/b${index}`,
        context.trail.nested(),
      );
      return this.core.durability.branch(child.path, () => runInContext(child, () => branch(signal)));
    };
    return { context, start };
  }

  async map(at: Site, items: readonly Value[], body: (item: Value, index: number) => Promise<Value>): Promise<Value[]> {
    const context = this.core.context;
    const segment = context.nextSegment("map", at);
    const anchor = context.nextAnchor(this.core.anchors.of("map", at));
    const controller = sharedController();
    const forward = (): void => controller.abort(context.signal.reason);
    context.signal.addEventListener("abort", forward, { once: true });
    this.core.emit({ type: "parallel-start", at, branches: items.length });
    let failed = 0;
    // Items waiting for input, by index: the others go on, and the loop waits when they are done.
    const waiting: Array<WaitingForInput | undefined> = [];
    try {
      const results = await pMap(
        items,
        (item, index) => {
          const child = context.child(
            `${segment}/i${index}`,
            controller.signal,
            context.block,
            `${anchor}/i${index}`,
            context.trail.nested(),
          );
          return this.core.durability
            .branch(child.path, () => runInContext(child, () => body(item, index)))
            .catch((error: unknown) => {
              if (error instanceof WaitingForInput) {
                waiting[index] = error;
                return null;
              }
              failed++;
              controller.abort(error);
              throw error;
            });
        },
        { concurrency: this.core.limiter.limit },
      );
      const waits = waiting.filter((wait) => wait !== undefined);
      if (waits.length > 0) throw waits.reduce(WaitingForInput.merge);
      return results;
    } finally {
      context.signal.removeEventListener("abort", forward);
      this.core.emit({ type: "parallel-end", at, succeeded: items.length - failed, failed });
    }
  }

  async block<T extends Value>(
    at: Site,
    name: string,
    maxDepth: number | undefined,
    body: () => Promise<T>,
  ): Promise<T> {
    const context = this.core.context;
    const parent = context.block;
    const depth = (parent?.depth ?? 0) + 1;
    const limit = maxDepth ?? DEFAULT_MAX_DEPTH;
    if (depth > limit)
      throw this.core.error(`RecursionLimitExceeded: block '${name}' exceeded max_depth ${limit}.`, at);
    const frame = { name, executionId: ++this.executionIds, depth, parentExecutionId: parent?.executionId ?? 0 };
    this.folder?.enterBlock(frame);
    try {
      const anchor = context.nextAnchor(this.core.anchors.of(`do:${name}`, at));
      return await runInContext(
        context.child(context.nextSegment(`do:${name}`, at), context.signal, frame, anchor, new Trail()),
        body,
      );
    } finally {
      this.folder?.exitBlock(frame);
    }
  }

  async list(at: Site, value: Value): Promise<readonly Value[]> {
    const parsed = listWithoutModel(value);
    if (parsed !== undefined) {
      this.core.emit({ type: "extraction", at, shape: "list", method: "parse" });
      return this.listed(at, parsed);
    }
    const source = text(value);
    return this.listed(
      at,
      (await this.extractOnce(at, "list", source, () =>
        this.core.step("extract", at, "Reading a list", extraction("list", source), (signal) =>
          extractList(this.core, source, signal),
        ),
      )) as readonly Value[],
    );
  }

  /** Says how many items a list read has: what a cost bound's `|items|` stands for. */
  private listed(at: Site, items: readonly Value[]): readonly Value[] {
    if (this.core.listening) this.core.emit({ type: "list", at, items: items.length });
    return items;
  }

  async field(at: Site, value: Value, index: Value, fields?: readonly string[]): Promise<Value> {
    const key = typeof index === "number" ? index : text(index);
    const lookup = fieldWithoutModel(value, key);
    if (lookup.found) {
      if (typeof value === "string") this.core.emit({ type: "extraction", at, shape: "field", method: "parse" });
      return lookup.value;
    }
    const source = text(value);
    if (typeof key === "string" && fields !== undefined && fields.length > 1 && fields.includes(key)) {
      const label = `Reading fields ${fields.map((field) => `"${field}"`).join(", ")}`;
      const once = `fields:${fields.join("\0")}\0${source}`;
      const answer = await this.extractOnce(at, "field", once, () =>
        this.core.step("extract", at, label, extraction("field", source, fields.join(",")), (signal) =>
          extractFields(this.core, source, fields, signal),
        ),
      );
      const record = fieldsOf(answer);
      if (record !== undefined) return record[key] ?? null;
      // A step a resumed run recorded before fields were read together: this one field's answer.
      this.extractions.delete(`${this.core.durability.scope()}\0field\0${once}`);
      return answer;
    }
    const label = `Reading ${typeof key === "number" ? `item ${key}` : `field "${key}"`}`;
    return this.extractOnce(at, "field", `${typeof key}:${key}\0${source}`, () =>
      this.core.step("extract", at, label, extraction("field", source, key), (signal) =>
        extractField(this.core, source, key, signal),
      ),
    );
  }

  async truthy(at: Site, value: Value): Promise<boolean> {
    const parsed = truthyWithoutModel(value);
    if (parsed !== undefined) {
      if (typeof value === "string") this.core.emit({ type: "extraction", at, shape: "boolean", method: "parse" });
      return parsed;
    }
    const source = text(value);
    return (await this.extractOnce(at, "boolean", source, () =>
      this.core.step("extract", at, "Reading yes or no", extraction("boolean", source), (signal) =>
        extractTruth(this.core, source, signal),
      ),
    )) as boolean;
  }

  /**
   * Asks the model to read structure out of a text once per run: a nested `for` over the same text
   * reads the same list, without paying for it (or risking another answer) at every outer iteration.
   */
  private async extractOnce(
    at: Site,
    shape: "list" | "field" | "boolean",
    source: string,
    ask: () => Promise<{ readonly value: Value }>,
  ): Promise<Value> {
    const signal = this.core.context.signal;
    for (;;) {
      const asked = !this.extractions.has(this.extractionKey(shape, source));
      try {
        return await this.sharedExtraction(at, shape, source, ask);
      } catch (error) {
        // Another caller's request, cancelled (a branch that lost a race), is not this caller's failure: ask again.
        if (!asked && isAbortError(error) && !signal.aborted) continue;
        throw error;
      }
    }
  }

  private extractionKey(shape: "list" | "field" | "boolean", source: string): string {
    return `${this.core.durability.scope()}\0${shape}\0${source}`;
  }

  private sharedExtraction(
    at: Site,
    shape: "list" | "field" | "boolean",
    source: string,
    ask: () => Promise<{ readonly value: Value }>,
  ): Promise<Value> {
    const key = this.extractionKey(shape, source);
    let answer = this.extractions.get(key);
    if (answer === undefined) {
      answer = ask().then(
        (result) => {
          this.core.emit({ type: "extraction", at, shape, method: "model" });
          return result.value;
        },
        (error: unknown) => {
          this.extractions.delete(key);
          throw error;
        },
      );
      this.extractions.set(key, answer);
    }
    return answer;
  }

  position(at: Site, statement: string): void {
    this.core.emit({ type: "position", at, statement });
  }

  iteration(at: Site, index: number): void {
    this.core.emit({ type: "loop-iteration", at, iteration: index });
  }

  bind<T extends Value>(at: Site, name: string, value: T): T {
    this.core.emit({ type: "binding", at, name, preview: this.core.preview(text(value)) });
    this.folder?.binding(at, name, value, this.core.context.block?.executionId);
    return value;
  }

  fail(at: Site, message?: string): Error {
    return this.core.error(message ?? "The program raised an error.", at);
  }

  caught(error: unknown): Value {
    return error instanceof Error ? error.message : String(error);
  }

  /**
   * Runs `write` after every earlier write to the same memory folder: sessions of one persistent agent
   * in parallel branches would otherwise number their segments alike.
   */
  private inTurn<T>(folder: string, write: () => Promise<T>): Promise<T> {
    const previous = this.memoryWrites.get(folder) ?? Promise.resolve();
    const next = previous.then(write, write);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.memoryWrites.set(folder, settled);
    void settled.then(() => {
      if (this.memoryWrites.get(folder) === settled) this.memoryWrites.delete(folder);
    });
    return next;
  }

  private get cwd(): string {
    return this.options.cwd ?? process.cwd();
  }
}

/** What an extraction asks: the shape read out of a text (and the field or item). */
function extraction(shape: "list" | "field" | "boolean", source: string, key?: string | number): StepAsk {
  return { text: source, details: () => ({ shape, key, source }) };
}

function persistScope(persist: SessionRequest["persist"]): string {
  if (persist === true) return "execution";
  if (persist === "project" || persist === "user") return persist;
  return "custom";
}

/** `YYYYMMDD-HHMMSS-xxxxxx` in UTC (filesystem.md, "Run ID Format"). */
export function newRunId(now: Date): string {
  const pad = (n: number): string => String(n).padStart(2, "0");
  const date = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  return `${date}-${time}-${randomBytes(3).toString("hex")}`;
}
