/**
 * A durable run's folder, laid out as state/filesystem.md says:
 *
 *   <runDir>/program.prose     the program as it ran
 *   <runDir>/used/<hash>.prose the text of each program it calls (`use`), by hash (used-texts.ts)
 *   <runDir>/run.json          run id, program hash, step scheme, the inputs (manifest.ts: what `resume` checks and reuses)
 *   <runDir>/journal.jsonl     every finished step (see file-journal.ts): what `resume` replays
 *   <runDir>/spent.json        dollars and model requests spent so far (a resumed run's budget counts them)
 *   <runDir>/state.md          the annotated trace, rewritten as the journal grows (considerState) and at the end
 *   <runDir>/bindings/         `{name}.md`, `{name}__{execution_id}.md`, `anon_NNN.md`
 *   <runDir>/agents/<name>/    `persist: true` memory (memory.ts)
 *   <runDir>/imports/<name>/   the same layout for each program call
 *
 * The journal is what makes a run resumable, and its record of a step is written before the next
 * step starts. The readable files follow it through an ordered, atomic writer; a crash may lose the
 * last of them, and the resumed run writes them again as it replays.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRunJson } from "./run-file.js";
import { asEnvironmentError, RunStateError } from "../errors.js";
import { makeDirectory } from "../make-directory.js";
import { safeName, writeFileAtomically } from "./files.js";
import type { Spent } from "../cost/meter.js";
import type { ProgramInfo, Question, RunEvent, Site, Value } from "../types.js";
import type { BlockFrame } from "../types/internal.js";
import { matchAnswers, whereRecorded } from "./question-names.js";
import { FileJournal, JOURNAL_FILE } from "./file-journal.js";
import { FileWriter } from "./file-writer.js";
import {
  checkStepScheme,
  givenInputs,
  MANIFEST_FILE,
  missingManifest,
  readManifest,
  STEP_SCHEME,
  type RunManifest,
} from "./manifest.js";
import { bindingFile } from "./binding-file.js";
import { ProgramSource, type BindingKind } from "./program-source.js";
import { clearWaiting, isCancelled, readWaiting, writeWaiting } from "./run-control.js";
import { lockRun, unlockRun } from "./run-lock.js";
import { removeStaleTemporaries } from "./stale-temporaries.js";
import { renderState, RunTrace, type RunStatus } from "./state-file.js";
import { editHash, keepUsedTexts, usedHashes, usedPrograms } from "./used-texts.js";
import { programChanges, RunFolderError, UNCHANGED, type ProgramChanges, type ResumeCheck } from "./program-changes.js";

const STATE_INTERVAL_MS = 50;
const QUIET_MS = 2000;
/** state.md rewrites a quiet journal may have beyond what its growth paid for (see `considerState`). */
const QUIET_CREDIT = 2;
const SPENT_FILE = "spent.json";

interface OpenedFolder {
  readonly folder: RunFolder;
  readonly inputs: { readonly [name: string]: Value };
  /** What changed in the program and the programs it calls since the run recorded its steps. */
  readonly changes: ProgramChanges;
  /** The `traceparent` of the run's first traced process (manifest.ts). */
  readonly traceparent?: string;
}

export { RunFolderError, type ResumeCheck };

export class RunFolder {
  private readonly trace: RunTrace;
  private readonly writer: FileWriter;
  private readonly source: ProgramSource;
  private stateTimer: NodeJS.Timeout | undefined;
  private quietTimer: NodeJS.Timeout | undefined;
  /** state.md's size and the journal's when it was last written, and the bytes of state.md written in all. */
  private readonly lastState = { size: 0, journal: 0, written: 0 };
  private anonymousCount = 0;
  private closed = false;
  private readonly children = new Set<RunFolder>();
  private readonly deadlines = new Map<string, string>();
  /**
   * The texts the run recorded of the programs it calls that changed since, by source path: a called
   * program's steps are lined up with them (shared by the run's nested folders).
   */
  earlierTexts: ReadonlyMap<string, string> = new Map();

  private constructor(
    readonly dir: string,
    readonly program: ProgramInfo,
    runId: string,
    startedAt: Date,
    writer: FileWriter,
    /** The journal, for the root folder of a run; nested program runs use a view of their caller's. */
    readonly journal: FileJournal | undefined,
    /** Bytes the run's journal has taken so far: state.md is rewritten as it grows (see `considerState`). */
    private readonly journalBytes: () => number = () => journal?.bytesWritten ?? 0,
  ) {
    this.source = new ProgramSource(program.text ?? "");
    this.trace = new RunTrace(runId, `${program.name}.prose`, startedAt);
    this.writer = writer;
  }

  /**
   * Starts a new run in `dir`, or with `resume` continues the one there. Returns the folder and the
   * inputs the run uses: a resumed run keeps the inputs it was started with.
   */
  static open(
    dir: string,
    program: ProgramInfo,
    runId: string,
    supplied: { readonly [name: string]: Value },
    resume: boolean,
    strict = false,
    traceparent?: string,
    check?: ResumeCheck,
  ): OpenedFolder {
    if (resume && !existsSync(join(dir, MANIFEST_FILE))) throw missingManifest(dir);
    if (!resume) {
      const existing = readManifest(dir);
      if (existing !== undefined)
        throw new RunFolderError(
          `${dir} already holds run ${existing.runId}: resume it, or start the new run in another folder.`,
        );
    }
    // Everything the run reads from its folder (run.json, waiting.json, the journal) is read under its
    // lock: a second resume or a \`prosec answer\` at the same instant waits its turn or is refused.
    try {
      makeDirectory(dir);
      lockRun(dir, readManifest(dir)?.runId ?? runId);
    } catch (error) {
      // A new run that could not make its folder has nothing to resume: it starts again.
      const made = existsSync(join(dir, MANIFEST_FILE));
      throw asEnvironmentError(error, `Taking the lock of run folder ${dir}`, made ? "resume" : "run it again");
    }
    try {
      return RunFolder.openLocked(dir, program, runId, supplied, resume, strict, traceparent, check);
    } catch (error) {
      unlockRun(dir);
      throw asEnvironmentError(error, `Opening run folder ${dir}`);
    }
  }

  private static openLocked(
    dir: string,
    program: ProgramInfo,
    runId: string,
    supplied: { readonly [name: string]: Value },
    resume: boolean,
    strict: boolean,
    traceparent: string | undefined,
    check: ResumeCheck | undefined,
  ): OpenedFolder {
    const existing = readManifest(dir);
    let manifest: RunManifest;
    let changes = UNCHANGED;
    const used = usedPrograms(program);
    let answers: ReadonlyArray<readonly [string, Value]> = [];
    let unanswered: readonly Question[] = [];
    if (resume) {
      if (existing === undefined) throw missingManifest(dir);
      checkStepScheme(existing, program.compilerVersion);
      if (isCancelled(dir))
        throw new RunFolderError(`Run ${existing.runId} was cancelled (prosec cancel); start a new run.`);
      removeStaleTemporaries(dir, true);
      changes = programChanges(dir, existing, program, used, strict);
      const waiting = readWaiting(dir);
      const questions = waiting?.questions ?? [];
      // What the run waits for is answered by an input given now or by `prosec answer` (recorded by the
      // question's key; an older prosec recorded it by name); any other input given now is answered ahead.
      const now = matchAnswers(questions, givenInputs(supplied), whereRecorded);
      if ("problem" in now) throw new RunFolderError(`--input ${now.problem}.`);
      const recorded = waiting?.answers ?? {};
      const answerOf = (question: Question): Value | undefined =>
        now.answers.find(([asked]) => asked === question)?.[1] ?? recorded[question.key] ?? recorded[question.name];
      answers = questions.flatMap((question) => {
        const value = answerOf(question);
        return value === undefined ? [] : [[question.key, value] as const];
      });
      unanswered = questions.filter((question) => answerOf(question) === undefined);
      const ahead = Object.fromEntries(now.unmatched.map((name) => [name, supplied[name]!]));
      for (const [name, value] of Object.entries(ahead)) {
        if (
          value !== undefined &&
          Object.hasOwn(existing.inputs, name) &&
          JSON.stringify(existing.inputs[name]) !== JSON.stringify(value)
        ) {
          throw new RunFolderError(
            `The input "${name}" differs from the one run ${existing.runId} started with; a resumed run keeps its inputs. Start a new run to change them.`,
          );
        }
      }
      // From now on the run records this scheme (turns, structures): an older prosec must not resume it.
      manifest = {
        ...existing,
        sourceHash: program.sourceHash,
        ...(used.size === 0 ? {} : { uses: usedHashes(used) }),
        stepScheme: STEP_SCHEME,
        inputs: { ...givenInputs(ahead), ...existing.inputs },
        ...(existing.traceparent === undefined && traceparent !== undefined ? { traceparent } : {}),
      };
    } else {
      if (existing !== undefined)
        throw new RunFolderError(
          `${dir} already holds run ${existing.runId}: resume it, or start the new run in another folder.`,
        );
      manifest = {
        runId,
        program: program.name,
        source: program.source,
        sourceHash: program.sourceHash,
        ...(used.size === 0 ? {} : { uses: usedHashes(used) }),
        compilerVersion: program.compilerVersion,
        stepScheme: STEP_SCHEME,
        inputs: givenInputs(supplied),
        startedAt: new Date().toISOString(),
        ...(traceparent === undefined ? {} : { traceparent }),
      };
    }
    const journal = new FileJournal(join(dir, JOURNAL_FILE), existing?.checksumsFrom);
    const refusal = check?.(journal.finishedWork(), changes);
    if (refusal !== undefined) {
      journal.close();
      throw refusal;
    }
    // Lines written from now on carry checksums; an older prosec's lines before them do not.
    manifest = { ...manifest, checksumsFrom: existing?.checksumsFrom ?? journal.loadedLines };
    // The records so far belong to the earlier text: they are reused by structure and fingerprint.
    if (changes.edited) journal.beginProgram(editHash(program, used));
    const folder = new RunFolder(dir, program, manifest.runId, new Date(manifest.startedAt), new FileWriter(), journal);
    folder.earlierTexts = changes.earlierTexts;
    keepUsedTexts(dir, used);
    // Before the first step (a run killed at once is resumable), whole (a second resume reads it unlocked).
    writeFileAtomically(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    // An answer is the journal record of its input's step; the run waits again for what is left unanswered.
    for (const [key, value] of answers) void folder.journal!.put(key, { kind: "input", value, usage: [] });
    for (const question of unanswered)
      if (question.deadline !== undefined) folder.deadlines.set(question.key, question.deadline);
    clearWaiting(dir);
    if (program.text !== undefined) writeFileSync(join(dir, "program.prose"), program.text);
    return {
      folder,
      inputs: manifest.inputs,
      changes,
      ...(existing?.traceparent === undefined ? {} : { traceparent: existing.traceparent }),
    };
  }

  /** `spent.json`: what the run spent in its earlier processes (a resumed run's budget counts it). */
  readSpent(): Spent | undefined {
    const path = join(this.dir, SPENT_FILE);
    if (!existsSync(path)) return undefined;
    const spent = readRunJson(path) as Partial<Spent> | undefined;
    if (typeof spent?.dollars !== "number" || typeof spent.calls !== "number") {
      throw new RunStateError(
        `${path} is damaged: it is not a record of spending written by prosec, so the run's budget cannot count what it spent. Start a new run.`,
      );
    }
    return { dollars: spent.dollars, calls: spent.calls };
  }

  /** Keeps the run's spending, written behind the run like the other readable files. */
  recordSpent(spent: Spent): void {
    this.writer.write(join(this.dir, SPENT_FILE), `${JSON.stringify(spent)}\n`);
  }

  /** The folder of a program this run calls (`imports/<name>`, chosen by the run): same layout, same writer. */
  child(dir: string, program: ProgramInfo): RunFolder {
    const folder = new RunFolder(dir, program, this.trace.runId, new Date(), this.writer, undefined, this.journalBytes);
    folder.earlierTexts = this.earlierTexts;
    if (program.text !== undefined) this.writer.write(join(dir, "program.prose"), program.text);
    this.children.add(folder);
    return folder;
  }

  /** A binding's value and where it came from, to `bindings/{name}.md` (`{name}__{id}.md` inside a block). */
  binding(
    at: Site,
    name: string,
    value: Value,
    executionId: number | undefined,
    kind: BindingKind = this.source.bindingKind(at.line, at.column),
  ): void {
    const file = executionId === undefined ? `${safeName(name)}.md` : `${safeName(name)}__${executionId}.md`;
    this.record(at, name, kind, file, value, executionId);
  }

  /** A session result bound to no name: `bindings/anon_NNN.md`, so every session's output is kept. */
  anonymous(at: Site, value: Value, executionId: number | undefined): void {
    const name = `anon_${String(++this.anonymousCount).padStart(3, "0")}`;
    this.record(at, name, "anonymous", `${name}.md`, value, executionId);
  }

  agent(name: string, scope: string, path: string): void {
    if (this.trace.agents.has(name)) return;
    this.trace.agents.set(name, { scope, path });
    this.changed();
  }

  enterBlock(frame: BlockFrame): void {
    this.trace.frames.set(frame.executionId, { executionId: frame.executionId, block: frame.name, depth: frame.depth });
    this.changed();
  }

  exitBlock(frame: BlockFrame): void {
    this.trace.frames.delete(frame.executionId);
    this.changed();
  }

  /** Follows the run's narration into state.md. */
  observe(event: RunEvent): void {
    const { trace } = this;
    const line = event.at?.line;
    switch (event.type) {
      case "session-start":
        if (line !== undefined) trace.start(line);
        break;
      case "session-end":
      case "judgment":
        if (line !== undefined) trace.finish(line);
        break;
      case "parallel-start":
        if (line !== undefined)
          trace.parallels.set(line, { branches: event.branches, succeeded: 0, failed: 0, running: true });
        break;
      case "parallel-end":
        if (line !== undefined)
          trace.parallels.set(line, {
            branches: event.succeeded + event.failed,
            succeeded: event.succeeded,
            failed: event.failed,
            running: false,
          });
        break;
      case "loop-iteration":
        if (line !== undefined) trace.loops.set(line, event.iteration);
        break;
      case "error":
        trace.error = event.message;
        break;
      default:
        return;
    }
    this.changed();
  }

  /** When the wait for an input's occurrence (by site) ends: set by an earlier wait with `(timeout: N)`. */
  deadlineOf(key: string): string | undefined {
    return this.deadlines.get(key);
  }

  /**
   * Tells `stop` of the first write of the run's state that fails (the journal or a readable file):
   * the run stops there. The journal has been cut back to its last complete record by then.
   */
  onFailure(stop: (error: unknown) => void): void {
    this.writer.onFailure = stop;
    if (this.journal !== undefined) this.journal.onFailure = stop;
  }

  /** The inputs the run stops waiting for (`waiting.json`, read by `prosec answer` and the next resume). */
  waitFor(questions: readonly Question[]): void {
    try {
      writeWaiting(this.dir, { questions, answers: {} });
    } catch (error) {
      throw asEnvironmentError(error, `Writing ${join(this.dir, "waiting.json")}`);
    }
  }

  /** Writes the final state.md and every file still pending; the folder stays resumable unless `complete`. */
  async close(status: RunStatus): Promise<void> {
    try {
      this.settle(status);
      await this.writer.flush();
    } catch (error) {
      throw asEnvironmentError(error, `Writing the files of run folder ${this.dir}`);
    } finally {
      if (!this.closed) {
        this.closed = true;
        this.journal?.close();
        if (this.journal !== undefined) unlockRun(this.dir);
      }
    }
  }

  private settle(status: RunStatus): void {
    this.trace.status = status;
    this.trace.executing.clear();
    for (const child of this.children) if (child.trace.status === "running") child.settle(status);
    if (this.stateTimer !== undefined) clearTimeout(this.stateTimer);
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.stateTimer = undefined;
    this.quietTimer = undefined;
    this.writeState();
  }

  private record(
    at: Site,
    name: string,
    kind: BindingKind | "anonymous",
    file: string,
    value: Value,
    executionId: number | undefined,
  ): void {
    const path = `bindings/${file}`;
    this.trace.bindings.set(path, { name, kind, path, executionId });
    this.trace.written.set(at.line, path);
    const statement = this.source.statement(at.line);
    this.writer.write(join(this.dir, path), () => bindingFile(name, kind, executionId, statement, value));
    this.changed();
  }

  private changed(): void {
    this.stateTimer ??= setTimeout(() => {
      this.stateTimer = undefined;
      this.considerState();
    }, STATE_INTERVAL_MS).unref();
  }

  /**
   * state.md is rewritten whole, so it is rewritten once the journal has grown by as much as state.md
   * weighed when last written: however long the run, its rewrites add up to about the journal's size,
   * which the folder keeps anyway (a timer alone wrote a long run's state.md hundreds of times over).
   *
   * A run whose journal stays quiet (a long step under way) has its state.md written after QUIET_MS,
   * but only while all of state.md written so far stays within the journal's size and QUIET_CREDIT
   * state.md more: a run whose every step is slow (a real model's pace) would otherwise rewrite it at
   * every step, whatever the journal's growth, and write many times its folder.
   */
  private considerState(): void {
    const journal = this.journalBytes();
    if (journal - this.lastState.journal >= this.lastState.size) {
      this.writeState();
      return;
    }
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      if (this.journalBytes() !== journal) this.considerState();
      else if (this.lastState.written + this.lastState.size <= journal + QUIET_CREDIT * this.lastState.size)
        this.writeState();
    }, QUIET_MS).unref();
  }

  private writeState(): void {
    this.lastState.journal = this.journalBytes();
    this.writer.write(join(this.dir, "state.md"), () => {
      this.trace.updatedAt = new Date();
      const content = renderState(this.trace, this.source);
      this.lastState.size = content.length;
      this.lastState.written += content.length;
      return content;
    });
  }
}
