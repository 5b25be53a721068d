/**
 * Writes a durable run's trace (`trace-format.ts`, docs/trace.md), fed by the run's steps
 * (`RunCore.step`) and model requests (`RunCore.callModel`). It is not the truth of the run (the
 * journal is): records are buffered and appended at most every FLUSH_INTERVAL_MS and when the run
 * ends, so a crash may lose the last fraction of a second of trace, never a step.
 *
 * Every text is redacted by the run before it gets here; each distinct text is written once.
 */
import { hash } from "node:crypto";
import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, writeFileSync } from "node:fs";
import { readRunFile } from "./run-file.js";
import { asEnvironmentError } from "../errors.js";
import { join } from "node:path";
import type {
  ContentBlock,
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
} from "@anthropic-ai/sdk/resources/messages/messages.js";
import { makeDirectory } from "../make-directory.js";
import type { Site, StepKind, Usage } from "../types.js";
import {
  TRACE_FOLDER,
  TRACE_STEPS_FILE,
  TRACE_TEXTS_FILE,
  TRACE_VERSION,
  type TraceRecord,
  type TracedBlock,
  type TracedMessage,
} from "./trace-format.js";

const FLUSH_INTERVAL_MS = 100;
/** Texts whose ids are kept by text, at most, and the longest kept (a tool's long output is hashed each time). */
const KNOWN_TEXTS = 128;
const KNOWN_TEXT_CHARACTERS = 8192;

/** A step's requests so far, found by the signal its requests are sent under (steps run concurrently). */
interface TracedStep {
  readonly s: number;
  requests: number;
  retries: number;
  lastFailed: boolean;
}

export class TraceWriter {
  private readonly stepsPath: string;
  private readonly textsPath: string;
  private readonly written = new Set<string>();
  /**
   * The ids of texts met lately, by redacted text (a value that becomes a secret mid-run, an MCP
   * server's, is redacted from then on): the same system prompt, tool list or answer comes with every
   * session of a fan-out, and is hashed once instead of each time.
   */
  private readonly known = new Map<string, string>();
  private steps = "";
  private texts = "";
  private timer: NodeJS.Timeout | undefined;
  /** Steps started by this process: their numbers in its part of the trace. */
  private started = 0;
  /** The write that failed: the trace takes nothing after it. */
  private failure: unknown;
  /** Told of the first failed write (the run stops). */
  onFailure: ((error: unknown) => void) | undefined;
  /** The running steps, by the signal each step's model requests are sent under. */
  private readonly running = new WeakMap<AbortSignal, TracedStep>();

  constructor(
    runDir: string,
    /** Removes secrets from a text (the run's redaction). */
    private readonly redact: (text: string) => string,
  ) {
    const folder = join(runDir, TRACE_FOLDER);
    makeDirectory(folder);
    this.stepsPath = join(folder, TRACE_STEPS_FILE);
    this.textsPath = join(folder, TRACE_TEXTS_FILE);
    // A resumed run adds to the texts already there.
    if (existsSync(this.textsPath))
      for (const line of readRunFile(this.textsPath).split("\n")) {
        const id = /^\{"id":"([0-9a-f]+)"/.exec(line)?.[1];
        if (id !== undefined) this.written.add(id);
      }
    this.record({ e: "run", v: TRACE_VERSION, t: Date.now(), pid: process.pid });
  }

  /** Runs a step's execution, recording its start, its requests (those sent under `signal`) and its end. */
  async step<T extends { readonly usage: readonly Usage[]; readonly value: unknown; readonly reason?: string }>(
    key: string,
    kind: StepKind,
    at: Site,
    label: string,
    execute: () => Promise<T>,
    isWaiting: (error: unknown) => boolean,
    /** Whether the step's branch was cancelled (a lost race, a failed sibling): the end says so. */
    isCancelled: () => boolean,
    /** The signal the step's model requests are sent under: what `request` finds the step by. */
    signal: AbortSignal,
  ): Promise<T> {
    const s = ++this.started;
    this.record({
      e: "start",
      s,
      key,
      kind,
      line: at.line,
      column: at.column,
      label: this.redact(label),
      t: Date.now(),
    });
    const step: TracedStep = { s, requests: 0, retries: 0, lastFailed: false };
    try {
      this.running.set(signal, step);
      const outcome = await execute();
      const value = typeof outcome.value === "string" ? outcome.value : JSON.stringify(outcome.value ?? null);
      this.record({
        e: "end",
        s,
        t: Date.now(),
        ok: true,
        retries: step.retries,
        value: this.text(value),
        ...(outcome.reason === undefined ? {} : { reason: this.redact(outcome.reason) }),
      });
      return outcome;
    } catch (error) {
      const waiting = isWaiting(error);
      this.record({
        e: "end",
        s,
        t: Date.now(),
        ok: false,
        retries: step.retries,
        ...(waiting ? { waiting: true } : { error: this.redact(messageOf(error)) }),
        ...(!waiting && isCancelled() ? { cancelled: true } : {}),
      });
      throw error;
    } finally {
      this.running.delete(signal);
    }
  }

  /** Runs one model request of the step running under `signal`, recording what was sent and what came back. */
  async request(
    params: MessageCreateParamsNonStreaming,
    signal: AbortSignal,
    send: () => Promise<{ message: Message; usage: Usage }>,
  ): Promise<{ message: Message; usage: Usage }> {
    const step = this.running.get(signal);
    if (step === undefined) return send();
    if (step.lastFailed) step.retries++;
    const n = ++step.requests;
    const sent = {
      s: step.s,
      n,
      t: Date.now(),
      model: params.model,
      system: this.system(params.system),
      messages: params.messages.map((message): TracedMessage => ({
        role: message.role,
        content: this.blocks(message.content),
      })),
      ...(params.tools === undefined || params.tools.length === 0
        ? {}
        : {
            tools: this.text(params.tools.map((tool) => ("name" in tool ? String(tool.name) : tool.type)).join(", ")),
          }),
    };
    try {
      const answered = await send();
      step.lastFailed = false;
      this.record({
        e: "request",
        ...sent,
        ms: Date.now() - sent.t,
        answer: this.blocks(answered.message.content),
        ...(answered.message.stop_reason === null ? {} : { stop: answered.message.stop_reason }),
        usage: withoutModel(answered.usage),
      });
      return answered;
    } catch (error) {
      step.lastFailed = true;
      this.record({ e: "request", ...sent, ms: Date.now() - sent.t, error: this.redact(messageOf(error)) });
      throw error;
    }
  }

  /** A piece of an MCP server's stderr (trace-format.ts, `TraceServerRecord`). */
  server(server: string, stderr: string): void {
    this.record({ e: "server", t: Date.now(), server, stderr: this.redact(stderr) });
  }

  /**
   * Writes what is buffered; the trace stays open. A write that fails (a full disk) is cut back to
   * the file's last complete record, the trace stops, and `onFailure` is told: the run stops too.
   */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const { texts, steps } = this;
    this.texts = "";
    this.steps = "";
    if (this.failure !== undefined) return;
    try {
      // Texts first: a step record never names a text that is not on disk.
      if (texts !== "") appendWhole(this.textsPath, texts);
      if (steps !== "") appendWhole(this.stepsPath, steps);
    } catch (error) {
      this.failure = asEnvironmentError(error, "Writing the run's trace");
      this.onFailure?.(this.failure);
    }
  }

  close(): void {
    this.flush();
  }

  private record(record: TraceRecord): void {
    if (this.failure !== undefined) return;
    this.steps += `${JSON.stringify(record)}\n`;
    this.timer ??= setTimeout(() => this.flush(), FLUSH_INTERVAL_MS).unref();
  }

  /** The id of a text, written the first time it is met. */
  private text(raw: string): string {
    const text = this.redact(raw);
    const known = this.known.get(text);
    if (known !== undefined) return known;
    const id = hash("sha256", text, "hex").slice(0, 16);
    if (!this.written.has(id)) {
      this.written.add(id);
      this.texts += `${JSON.stringify({ id, text })}\n`;
    }
    if (text.length <= KNOWN_TEXT_CHARACTERS) {
      if (this.known.size >= KNOWN_TEXTS) this.known.clear();
      this.known.set(text, id);
    }
    return id;
  }

  private system(system: MessageCreateParamsNonStreaming["system"]): string[] {
    if (system === undefined) return [];
    if (typeof system === "string") return [this.text(system)];
    return system.map((block) => this.text(block.text));
  }

  private blocks(content: string | ReadonlyArray<ContentBlockParam | ContentBlock>): TracedBlock[] {
    if (typeof content === "string") return [{ text: this.text(content) }];
    return content.map((block): TracedBlock => {
      if (block.type === "text") return { text: this.text(block.text) };
      if (block.type === "tool_use")
        return { tool: this.redact(block.name), input: this.text(JSON.stringify(block.input)) };
      if (block.type === "tool_result") {
        const content =
          typeof block.content === "string"
            ? block.content
            : (block.content ?? []).map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
        return { result: this.text(content), ...(block.is_error === true ? { error: true as const } : {}) };
      }
      return { text: this.text(`[${block.type}]`) };
    });
  }
}

/** Appends `text` to the file at `path`, or on failure leaves the file as it was. */
function appendWhole(path: string, text: string): void {
  const descriptor = openSync(path, "a");
  try {
    const before = fstatSync(descriptor).size;
    try {
      writeFileSync(descriptor, text);
    } catch (error) {
      try {
        ftruncateSync(descriptor, before);
      } catch {
        // Cut short without its newline: a reader drops it.
      }
      throw Object.assign(error as Error, { path });
    }
  } finally {
    closeSync(descriptor);
  }
}

function withoutModel({ model: _model, ...tokens }: Usage): Omit<Usage, "model"> {
  return tokens;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
