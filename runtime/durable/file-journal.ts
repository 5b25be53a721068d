/**
 * The journal of a durable run: `<runDir>/journal.jsonl`, one JSON record per finished step, and
 * before a session's step record, one per event of its conversation (`{"key", "turn": event}`,
 * `conversation.ts`): each model reply that asked for tools, each tool call started and finished.
 *
 * A record is appended with one synchronous write before the step returns, so it is in the
 * operating system's hands (it survives the process being killed) before the next step starts.
 * Appending is what keeps a durable run cheap: a temporary file and a rename per step costs
 * 0.2–1.5 ms here, a session against a fast server about 0.5 ms. A record counts only once its
 * closing newline is written: a record cut short by a crash is dropped when the run is resumed
 * (that step runs again), so the log is atomic record by record.
 */
import { closeSync, existsSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { readRunFile } from "./run-file.js";
import { asEnvironmentError, EnvironmentError } from "../errors.js";
import type { Conversation, Journal, RecordedStep, StepAddress, StepModel, TurnEvent } from "../types.js";
import { finishedEffects } from "./finished-effects.js";
import { journalLine, parseJournal, recordLine, type ProgramRecord, type TurnRecord } from "./journal-lines.js";

export {
  JOURNAL_FILE,
  journalLine,
  parseJournal,
  recordLine,
  type JournalRecord,
  type ProgramRecord,
  type TurnRecord,
} from "./journal-lines.js";

/**
 * A session whose tool calls with an effect finished (a command, a file edited or written), as the
 * journal holds it when a run is resumed: what a resume must not run again unasked.
 */
export interface FinishedWork {
  /** Its site, in the program text that recorded it. */
  readonly site: string;
  /** Its structure. */
  readonly structure: string;
  readonly effects: readonly string[];
  readonly model?: StepModel;
  readonly agent?: string;
  /** Whether it was recorded under the program text the run recorded last (`program.prose`): its key's lines are that text's. */
  readonly latestText: boolean;
  /** Whether the session was under way (its answer not recorded). */
  readonly underWay: boolean;
}

/** What a session did, remembered with the text it was recorded under (numbered as the journal's program records come). */
interface Effects {
  readonly site: string;
  readonly effects: readonly string[];
  readonly model?: StepModel;
  readonly agent?: string;
  readonly text: number;
}

/** A session under way: its structure, fingerprint, model and agent, as its turn records say. */
interface SessionAddress {
  readonly structure: string;
  readonly fingerprint: string;
  readonly model?: StepModel;
  readonly agent?: string;
}

export class FileJournal implements Journal {
  private readonly steps = new Map<string, RecordedStep>();
  /** The turns of sessions not finished yet (a finished session's record replaces them). */
  private readonly conversations = new Map<string, TurnEvent[]>();
  /** Every step record by structure, those of earlier program texts included (the latest wins). */
  private readonly structural = new Map<string, RecordedStep>();
  /** The address of each session under way (by site), from its turn records. */
  private readonly underWay = new Map<string, SessionAddress>();
  /** Sessions an earlier program text left under way, by structure: an edited resume continues them. */
  private readonly earlierUnderWay = new Map<
    string,
    { events: TurnEvent[]; fingerprint: string; site: string; model?: StepModel; agent?: string; text: number }
  >();
  /** The finished tool calls with an effect of each finished session, by structure. */
  private readonly effects = new Map<string, Effects>();
  /** The program texts the journal has seen: 0, and one more at each program record. */
  private text = 0;
  /** The text the journal's records were last written under when it was opened. */
  private loadedText = 0;
  private readonly descriptor: number;
  private appended = 0;
  /** The journal's length in bytes: where its last complete record ends. */
  private length: number;
  /** Lines the journal held when it was opened. */
  readonly loadedLines: number;
  /** The failure that stopped appending: once an append failed, no record is ever appended after it. */
  private failure: EnvironmentError | undefined;
  /** Told of the first failed append (the run stops). */
  onFailure: ((error: EnvironmentError) => void) | undefined;

  /**
   * Opens (or creates) the journal at `path`, loading its records and dropping a torn last one;
   * `checksumsFrom` as for `parseJournal`.
   */
  constructor(
    readonly path: string,
    checksumsFrom?: number,
  ) {
    const loaded = existsSync(path) ? this.load(readRunFile(path), checksumsFrom) : { bytes: 0, lines: 0 };
    this.loadedLines = loaded.lines;
    this.length = loaded.bytes;
    this.descriptor = openSync(path, "a");
    ftruncateSync(this.descriptor, this.length);
  }

  /** How many steps the journal holds. */
  get size(): number {
    return this.steps.size;
  }

  get(site: string): Promise<RecordedStep | undefined> {
    return Promise.resolve(this.steps.get(site));
  }

  put(site: string, step: RecordedStep, address?: StepAddress): Promise<void> {
    const kept: RecordedStep =
      address === undefined
        ? step
        : {
            ...withoutAddress(step),
            anchor: address.anchor,
            request: address.request,
            structure: address.structure,
            fingerprint: address.fingerprint,
            ...askedBy(address),
          };
    this.append(journalLine(site, kept));
    this.steps.set(site, kept);
    this.finishSession(site, kept);
    return Promise.resolve();
  }

  /** A step's record arrived: its turns are done with, what they did is remembered by structure. */
  private finishSession(site: string, step: RecordedStep): void {
    if (step.structure !== undefined) {
      this.structural.set(step.structure, step);
      const effects = finishedEffects(this.conversations.get(site) ?? []);
      const before = this.effects.get(step.structure);
      const asked = askedBy({ model: step.model ?? before?.model, agent: step.agent ?? before?.agent });
      if (effects.length > 0) this.effects.set(step.structure, { site, effects, text: this.text, ...asked });
      // Taken over by a later text of the program: what it did is now this site's.
      else if (step.reused === true && before !== undefined)
        this.effects.set(step.structure, { ...before, site, text: this.text });
      else if (step.reused !== true) this.effects.delete(step.structure);
    }
    this.conversations.delete(site);
    this.underWay.delete(site);
  }

  beginStep(site: string, address: StepAddress, proceed: (effects: readonly string[]) => boolean): void {
    const effects: string[] = [];
    const done = this.steps.get(site) ?? this.structural.get(address.structure);
    if (done?.fingerprint !== undefined && done.fingerprint !== address.fingerprint)
      effects.push(...(this.effects.get(done.structure ?? address.structure)?.effects ?? []));
    const events = this.conversations.get(site) ?? [];
    const known = this.underWay.get(site);
    const startOver = events.length > 0 && known !== undefined && known.fingerprint !== address.fingerprint;
    if (startOver) effects.push(...finishedEffects(events));
    const earlier = events.length === 0 ? this.earlierUnderWay.get(address.structure) : undefined;
    const adopt = earlier !== undefined && earlier.fingerprint === address.fingerprint;
    if (earlier !== undefined && !adopt) effects.push(...finishedEffects(earlier.events));
    if (effects.length > 0 && !proceed(effects)) return;
    this.underWay.set(site, {
      structure: address.structure,
      fingerprint: address.fingerprint,
      ...askedBy(address),
    });
    if (earlier !== undefined) this.earlierUnderWay.delete(address.structure);
    if (!startOver && !adopt) return;
    const conversation = this.conversation(site);
    if (startOver) conversation.append({ type: "restart" });
    // Recorded again under this text's site, so the run resumes as any other from now on.
    if (adopt) for (const event of earlier.events) conversation.append(event);
  }

  /** The sessions whose finished tool calls had an effect, finished or under way, as the journal was opened (before any step of this process). */
  finishedWork(): FinishedWork[] {
    const work: FinishedWork[] = [];
    const add = (structure: string, found: Effects, underWay: boolean): void => {
      work.push({
        site: found.site,
        structure,
        effects: found.effects,
        latestText: found.text === this.loadedText,
        underWay,
        ...askedBy(found),
      });
    };
    for (const [structure, found] of this.effects) add(structure, found, false);
    for (const [site, events] of this.conversations) {
      const address = this.underWay.get(site);
      const effects = finishedEffects(events);
      if (address !== undefined && effects.length > 0)
        add(address.structure, { site, effects, text: this.text, ...askedBy(address) }, true);
    }
    for (const [structure, earlier] of this.earlierUnderWay) {
      const effects = finishedEffects(earlier.events);
      if (effects.length > 0) add(structure, { ...earlier, effects }, true);
    }
    return work;
  }

  /** A recorded step with this structure, from this program's text or an earlier one. */
  reusable(structure: string): RecordedStep | undefined {
    return this.structural.get(structure);
  }

  /**
   * The program changed (a resumed run of an edited program): from here on, records are looked up by
   * site only among those written after this line.
   */
  beginProgram(sourceHash: string): void {
    this.append(recordLine({ key: "", program: sourceHash } satisfies ProgramRecord));
    this.setAsideConversations();
    this.steps.clear();
    this.text++;
  }

  /** The sessions under way of the text that ends here, kept by structure for the next text. */
  private setAsideConversations(): void {
    for (const [site, events] of this.conversations) {
      const address = this.underWay.get(site);
      if (address !== undefined && events.length > 0)
        this.earlierUnderWay.set(address.structure, {
          events,
          fingerprint: address.fingerprint,
          site,
          text: this.text,
          ...askedBy(address),
        });
    }
    this.conversations.clear();
    this.underWay.clear();
  }

  conversation(site: string): Conversation {
    let events = this.conversations.get(site);
    if (events === undefined) this.conversations.set(site, (events = []));
    const list = events;
    return {
      events: list,
      append: (turn) => {
        const address = this.underWay.get(site);
        this.append(recordLine({ key: site, turn, ...address } satisfies TurnRecord));
        list.push(turn);
      },
    };
  }

  /** Bytes this process appended. */
  get bytesWritten(): number {
    return this.appended;
  }

  /**
   * Appends one line whole, or not at all: a write that fails part-way (a full disk) is cut back to
   * the last complete record, and the journal takes no record after it, so a resumed run finds every
   * record it holds whole and in order.
   */
  private append(line: string): void {
    if (this.failure !== undefined) throw this.failure;
    const bytes = Buffer.from(line, "utf8");
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.descriptor, bytes, written);
    } catch (error) {
      try {
        ftruncateSync(this.descriptor, this.length);
      } catch {
        // The torn record has no newline: the next open drops it all the same.
      }
      const failure = asEnvironmentError(Object.assign(error as Error, { path: this.path }), `Writing ${this.path}`);
      this.failure =
        failure instanceof EnvironmentError
          ? failure
          : new EnvironmentError("EIO", this.path, `Writing ${this.path} failed: ${String(error)}`, error);
      this.onFailure?.(this.failure);
      throw this.failure;
    }
    this.length += written;
    this.appended += written;
  }

  close(): void {
    closeSync(this.descriptor);
  }

  /** Reads the records; returns the byte length of the complete ones and how many lines they take. */
  private load(content: string, checksumsFrom: number | undefined): { bytes: number; lines: number } {
    const { lines, bytes } = parseJournal(content, this.path, checksumsFrom);
    for (const line of lines) {
      if ("program" in line) {
        this.setAsideConversations();
        this.steps.clear();
        this.text++;
      } else if ("turn" in line) {
        let events = this.conversations.get(line.key);
        if (events === undefined) this.conversations.set(line.key, (events = []));
        events.push(line.turn);
        if (line.structure !== undefined && line.fingerprint !== undefined)
          this.underWay.set(line.key, {
            structure: line.structure,
            fingerprint: line.fingerprint,
            ...askedBy(line),
          });
      } else {
        const { key, ...step } = line;
        this.steps.set(key, step);
        this.finishSession(key, step);
      }
    }
    this.loadedText = this.text;
    return { bytes, lines: lines.length };
  }
}

/** The model and agent a record or address has, as fields of a record (none that it lacks). */
function askedBy(from: { readonly model?: StepModel | undefined; readonly agent?: string | undefined }): {
  model?: StepModel;
  agent?: string;
} {
  return {
    ...(from.model === undefined ? {} : { model: from.model }),
    ...(from.agent === undefined ? {} : { agent: from.agent }),
  };
}

/** A step record as reused under another site: its address fields are the new step's. */
function withoutAddress(step: RecordedStep): RecordedStep {
  const { kind, value, usage, reason, reused, attempts, problems, truncated, failed, remembered } = step;
  return {
    kind,
    value,
    usage,
    ...(failed === undefined ? {} : { failed }),
    ...(reason === undefined ? {} : { reason }),
    ...(reused === undefined ? {} : { reused }),
    ...(attempts === undefined ? {} : { attempts }),
    ...(problems === undefined ? {} : { problems }),
    ...(truncated === undefined ? {} : { truncated }),
    ...(remembered === undefined ? {} : { remembered }),
  };
}
