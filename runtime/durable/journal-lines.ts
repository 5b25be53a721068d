/**
 * The lines of a run's journal (file-journal.ts): step records, turn records and program records, each
 * ending with its checksum, and the parser that reads them back and refuses a damaged line.
 */
import { hash } from "node:crypto";
import { RunStateError } from "../errors.js";
import type { RecordedStep, StepKind, StepModel, TurnEvent } from "../types.js";

export const JOURNAL_FILE = "journal.jsonl";

/** A line of the journal: the step's site (`key`) and its record. */
export interface JournalRecord extends RecordedStep {
  readonly key: string;
}

/** A line of the journal holding one event of a running session's conversation. */
export interface TurnRecord {
  /** The session's site. */
  readonly key: string;
  readonly turn: TurnEvent;
  /**
   * The session's structure and fingerprint when the event was recorded (absent before step scheme
   * 3; the structure was called `step` before scheme 4, read as `structure`).
   */
  readonly structure?: string;
  readonly fingerprint?: string;
  /** The session's model and agent (absent before they were kept). */
  readonly model?: StepModel;
  readonly agent?: string;
}

/**
 * The line a resumed run writes when its program changed: the records before it belong to an
 * earlier text of the program, so they are found only by structure and fingerprint.
 */
export interface ProgramRecord {
  readonly key: "";
  readonly program: string;
}

/** A record as one journal line, newline included. */
export function journalLine(site: string, step: RecordedStep): string {
  return recordLine({ key: site, ...step } satisfies JournalRecord);
}

/**
 * Any record as one journal line, newline included, ending with its checksum (`"sum"`: the first 16
 * hex digits of the SHA-256 of the line's JSON without it). A line changed by hand that stays valid
 * JSON no longer matches its sum, and is refused with its line number instead of being replayed.
 */
export function recordLine(record: object): string {
  const json = JSON.stringify(record);
  return `${json.slice(0, -1)},"sum":"${checksum(json)}"}\n`;
}

function checksum(json: string): string {
  return hash("sha256", json, "hex").slice(0, 16);
}

const SUM = /,"sum":"([0-9a-f]{16})"\}$/;

/** Whether a line's checksum holds: true or false for a line that has one, undefined for one written before checksums. */
function checksumHolds(line: string): boolean | undefined {
  const found = SUM.exec(line);
  if (found === null) return undefined;
  return checksum(`${line.slice(0, found.index)}}`) === found[1];
}

/**
 * The complete records of a journal's text, and the byte length they take: a last line without its
 * newline is a record cut short by a crash, and is left out. Any other line that is not a step record
 * is a RunStateError naming it.
 */
export function parseJournal(
  content: string,
  path: string,
  /**
   * The line (0-based) from which every line must carry a checksum (run.json's `checksumsFrom`):
   * lines before it were written by a prosec before checksums. Undefined: a line without one is
   * accepted anywhere (a run no prosec with checksums has resumed yet).
   */
  checksumsFrom?: number,
): {
  readonly records: JournalRecord[];
  readonly lines: ReadonlyArray<JournalRecord | TurnRecord | ProgramRecord>;
  readonly bytes: number;
} {
  const end = content.lastIndexOf("\n") + 1;
  const texts = content.slice(0, end).split("\n");
  texts.pop();
  const lines = texts.map((line, index) => {
    const holds = checksumHolds(line);
    const sound = holds ?? (checksumsFrom === undefined || index < checksumsFrom);
    return (sound ? parseRecord(line) : undefined) ?? throwDamaged(path, index + 1, texts.length, holds === false);
  });
  const records = lines.filter((line): line is JournalRecord => "kind" in line);
  return { records, lines, bytes: Buffer.byteLength(content.slice(0, end), "utf8") };
}

const KINDS: ReadonlySet<string> = new Set<StepKind>(["session", "judge", "choose", "extract", "input", "finish"]);

/** Every turn event a session journals: a record, so a new event type cannot be left out (a resume would call it damaged). */
const TURN_EVENT_TYPES: { readonly [type in TurnEvent["type"]]: true } = {
  response: true,
  "tool-started": true,
  "tool-finished": true,
  restart: true,
  "approval-pending": true,
  continued: true,
  elided: true,
};
const TURN_EVENTS: ReadonlySet<string> = new Set(Object.keys(TURN_EVENT_TYPES));

/** A complete line as a step or turn record, or undefined when it is not one prosec wrote (fields added later are optional). */
function parseRecord(line: string): JournalRecord | TurnRecord | ProgramRecord | undefined {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof record !== "object" || record === null) return undefined;
  // The checksum is the line's, not the record's.
  delete (record as { sum?: unknown }).sum;
  const { key, kind, usage, turn, program } = record as {
    key?: unknown;
    kind?: unknown;
    usage?: unknown;
    turn?: unknown;
    program?: unknown;
  };
  if (program !== undefined) return key === "" && typeof program === "string" ? (record as ProgramRecord) : undefined;
  if (turn !== undefined) {
    const type = (turn as { type?: unknown } | null)?.type;
    return typeof key === "string" && typeof type === "string" && TURN_EVENTS.has(type)
      ? (renamed(record) as TurnRecord)
      : undefined;
  }
  const valid =
    typeof key === "string" && typeof kind === "string" && KINDS.has(kind) && "value" in record && Array.isArray(usage);
  return valid ? (renamed(record) as JournalRecord) : undefined;
}

/** The fields step scheme 4 renamed, by their names before it (`StepAddress`: one name per identity). */
const RENAMED_IN_SCHEME_4: { readonly [before: string]: keyof RecordedStep } = {
  step: "structure",
  requestHash: "request",
};

/** A record written before step scheme 4 with its fields as scheme 4 names them (a record has one name or the other). */
function renamed(record: object): object {
  const fields = record as Record<string, unknown>;
  for (const [before, now] of Object.entries(RENAMED_IN_SCHEME_4)) {
    if (!(before in fields)) continue;
    fields[now] ??= fields[before];
    delete fields[before];
  }
  return fields;
}

/**
 * A damaged line before the journal's end is not a crash's torn write, which only ever cuts the last
 * record short: something changed the file. The steps after it may have used its result, so only
 * dropping it and everything after it is sound.
 */
function throwDamaged(path: string, line: number, lines: number, changed = false): never {
  const after = line === lines ? "" : ` and the ${lines - line === 1 ? "line" : `${lines - line} lines`} after it`;
  const kept =
    line === 1
      ? "nothing is replayed"
      : line === 2
        ? "the step on line 1 is replayed"
        : `the steps on lines 1 to ${line - 1} are replayed`;
  throw new RunStateError(
    `${path} is damaged at line ${line} of ${lines}: ${changed ? "the record was changed after prosec wrote it (its checksum does not match)" : "it is not a step record written by prosec"}, so the run cannot be resumed as it is. Either start a new run, or delete line ${line}${after} from the journal and resume: ${kept} and the model is asked again for the rest.`,
  );
}
