/**
 * The journal of a durable run: `<runDir>/journal.jsonl`, one JSON record per finished step.
 *
 * A record is appended with one synchronous write before the step returns, so it is in the
 * operating system's hands (it survives the process being killed) before the next step starts.
 * Appending is what keeps a durable run cheap: a temporary file and a rename per step costs
 * 0.2–1.5 ms here, a session against a fast server about 0.5 ms. A record counts only once its
 * closing newline is written: a record cut short by a crash is dropped when the run is resumed
 * (that step runs again), so the log is atomic record by record.
 */
import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { RunStateError } from "../errors.js";
import type { Journal, RecordedStep, StepIdentity, StepKind } from "../types.js";

export const JOURNAL_FILE = "journal.jsonl";

/** A line of the journal: the step's key and its record. */
export interface JournalRecord extends RecordedStep {
  readonly key: string;
}

/** A record as one journal line, newline included. */
export function journalLine(key: string, step: RecordedStep): string {
  return `${JSON.stringify({ key, ...step } satisfies JournalRecord)}\n`;
}

/**
 * The complete records of a journal's text, and the byte length they take: a last line without its
 * newline is a record cut short by a crash, and is left out. Any other line that is not a step record
 * is a RunStateError naming it.
 */
export function parseJournal(
  content: string,
  path: string,
): { readonly records: JournalRecord[]; readonly bytes: number } {
  const end = content.lastIndexOf("\n") + 1;
  const lines = content.slice(0, end).split("\n");
  lines.pop();
  const records = lines.map((line, index) => parseRecord(line) ?? throwDamaged(path, index + 1, lines.length));
  return { records, bytes: Buffer.byteLength(content.slice(0, end), "utf8") };
}

const KINDS: ReadonlySet<string> = new Set<StepKind>(["session", "judge", "choose", "extract", "input", "finish"]);

/** A complete line as a step record, or undefined when it is not one prosec wrote (fields added later are optional). */
function parseRecord(line: string): JournalRecord | undefined {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof record !== "object" || record === null) return undefined;
  const { key, kind, usage } = record as { key?: unknown; kind?: unknown; usage?: unknown };
  const valid =
    typeof key === "string" && typeof kind === "string" && KINDS.has(kind) && "value" in record && Array.isArray(usage);
  return valid ? (record as JournalRecord) : undefined;
}

/**
 * A damaged line before the journal's end is not a crash's torn write, which only ever cuts the last
 * record short: something changed the file. The steps after it may have used its result, so only
 * dropping it and everything after it is sound.
 */
function throwDamaged(path: string, line: number, lines: number): never {
  const after = line === lines ? "" : ` and the ${lines - line === 1 ? "line" : `${lines - line} lines`} after it`;
  const kept =
    line === 1
      ? "nothing is replayed"
      : line === 2
        ? "the step on line 1 is replayed"
        : `the steps on lines 1 to ${line - 1} are replayed`;
  throw new RunStateError(
    `${path} is damaged at line ${line} of ${lines}: it is not a step record written by prosec, so the run cannot be resumed as it is. Either start a new run, or delete line ${line}${after} from the journal and resume: ${kept} and the model is asked again for the rest.`,
  );
}

export class FileJournal implements Journal {
  private readonly steps = new Map<string, RecordedStep>();
  private readonly descriptor: number;

  /** Opens (or creates) the journal at `path`, loading its records and dropping a torn last one. */
  constructor(readonly path: string) {
    const complete = existsSync(path) ? this.load(readFileSync(path, "utf8")) : 0;
    this.descriptor = openSync(path, "a");
    ftruncateSync(this.descriptor, complete);
  }

  /** How many steps the journal holds. */
  get size(): number {
    return this.steps.size;
  }

  get(key: string): Promise<RecordedStep | undefined> {
    return Promise.resolve(this.steps.get(key));
  }

  put(key: string, step: RecordedStep, identity?: StepIdentity): Promise<void> {
    const line = journalLine(
      key,
      identity === undefined ? step : { ...step, anchor: identity.anchor, requestHash: identity.requestHash },
    );
    const bytes = Buffer.from(line, "utf8");
    let written = 0;
    while (written < bytes.length) written += writeSync(this.descriptor, bytes, written);
    this.steps.set(key, step);
    return Promise.resolve();
  }

  close(): void {
    closeSync(this.descriptor);
  }

  /** Reads the records; returns the byte length of the complete ones. */
  private load(content: string): number {
    const { records, bytes } = parseJournal(content, this.path);
    for (const { key, ...step } of records) this.steps.set(key, step);
    return bytes;
  }
}
