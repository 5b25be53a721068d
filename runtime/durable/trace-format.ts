/**
 * The run's trace, as `docs/trace.md` describes it: what `prosec view` shows beyond the journal.
 *
 *   <runDir>/trace/steps.jsonl   one record per event of a step: started, each model request, ended
 *   <runDir>/trace/texts.jsonl   every distinct text once, under the first 16 hex digits of its SHA-256
 *
 * Requests name their texts (system prompt, each block of each message, each answer) by id, so a
 * system prompt or a trail repeated across 20,000 requests is stored once. Both files are only ever
 * appended to: the bytes written are the folder's size.
 */
import type { Usage } from "../types.js";

export const TRACE_FOLDER = "trace";
export const TRACE_STEPS_FILE = "steps.jsonl";
export const TRACE_TEXTS_FILE = "texts.jsonl";
/** The trace's own format version: a reader skips records of a later one it does not know. */
export const TRACE_VERSION = 1;

/** A block of a message or an answer: text, a tool call (input as JSON text) or a tool's result. */
export type TracedBlock =
  | { readonly text: string }
  | { readonly tool: string; readonly input: string }
  | { readonly result: string; readonly error?: true };

export interface TracedMessage {
  readonly role: "user" | "assistant" | "system";
  readonly content: readonly TracedBlock[];
}

/** Each process that runs (or resumes) the run starts with one. */
export interface TraceRunRecord {
  readonly e: "run";
  readonly v: number;
  /** Epoch milliseconds. */
  readonly t: number;
  readonly pid: number;
}

export interface TraceStartRecord {
  readonly e: "start";
  /** The step's number in this process's part of the trace (after its `run` record): its later records name it so. */
  readonly s: number;
  readonly key: string;
  readonly kind: string;
  readonly line: number;
  readonly column: number;
  readonly label: string;
  readonly t: number;
}

export interface TraceRequestRecord {
  readonly e: "request";
  readonly s: number;
  /** The request's number within its step, from 1. */
  readonly n: number;
  /** When it was sent (epoch ms) and how long the answer took (the SDK's transport retries included). */
  readonly t: number;
  readonly ms: number;
  readonly model: string;
  /** Text ids. */
  readonly system: readonly string[];
  readonly messages: readonly TracedMessage[];
  /** The names of the tools offered, one text (`read_file, list_files`). */
  readonly tools?: string;
  /** The answer's blocks (text ids), or the error the request ended with. */
  readonly answer?: readonly TracedBlock[];
  readonly stop?: string;
  /** The request's tokens (its model is the request's). */
  readonly usage?: Omit<Usage, "model">;
  readonly error?: string;
}

export interface TraceEndRecord {
  readonly e: "end";
  readonly s: number;
  readonly t: number;
  readonly ok: boolean;
  /** Requests that failed and were tried again (`retry:`, or the runtime asking again). */
  readonly retries: number;
  /** The step's result (a text id) and a judgment's or choice's reason. */
  readonly value?: string;
  readonly reason?: string;
  readonly error?: string;
  /** The step stopped the run to wait for an input. */
  readonly waiting?: true;
  /** The step's branch was cancelled (a lost race, a failed sibling): it ended without an answer. */
  readonly cancelled?: true;
}

/** What a stdio MCP server wrote to its stderr (redacted): its own diagnostics, never shown on the terminal. */
export interface TraceServerRecord {
  readonly e: "server";
  readonly t: number;
  readonly server: string;
  readonly stderr: string;
}

export type TraceRecord = TraceRunRecord | TraceStartRecord | TraceRequestRecord | TraceEndRecord | TraceServerRecord;

/** A trace's records with each step's site on its requests and end. */
export type KeyedTraceRecord =
  | TraceRunRecord
  | TraceStartRecord
  | (TraceRequestRecord & { readonly key: string })
  | (TraceEndRecord & { readonly key: string })
  | TraceServerRecord;

/**
 * Names each request and end by its step's site: step numbers count from each `run` record (each
 * process that ran the run), so a record's step is the one started after the last `run` record.
 */
export function keyedRecords(records: readonly TraceRecord[]): KeyedTraceRecord[] {
  let keys = new Map<number, string>();
  const keyed: KeyedTraceRecord[] = [];
  for (const record of records) {
    if (record.e === "run") keys = new Map();
    if (record.e === "start") keys.set(record.s, record.key);
    if (record.e === "request" || record.e === "end") {
      const key = keys.get(record.s);
      if (key !== undefined) keyed.push({ ...record, key });
    } else keyed.push(record);
  }
  return keyed;
}

export interface TraceText {
  readonly id: string;
  readonly text: string;
}
