/**
 * The fake Messages API's streamed answers: a message sent as the API streams it, server-sent events
 * over chunked transfer (`message_start`, `ping`, `content_block_start`, `content_block_delta` with
 * `text_delta` or `input_json_delta`, `content_block_stop`, `message_delta` with the stop reason and
 * the output tokens, `message_stop`), text and tool input in small pieces, each event its own chunk.
 *
 * It misbehaves on cue (`StreamFault`): the connection dropped after so many characters of text, or an
 * `event: error` (`overloaded_error` by default) in the middle of the stream.
 *
 * Node built-ins only (see fake-anthropic.ts).
 */
import type { ServerResponse } from "node:http";
import { jsonText } from "./fake-usage.js";

export interface StreamFault {
  /** Characters of text (and tool input) sent before the fault. */
  readonly afterChars: number;
  /** `drop`: the connection is destroyed; `error`: an `event: error` ends the stream. */
  readonly how: "drop" | "error";
  /** The error event's type (default `overloaded_error`). */
  readonly errorType?: string;
}

export interface StreamShape {
  /** Characters per text or JSON piece (default 12). */
  readonly chunkChars?: number;
  /** Wait between events (default 0: every event still goes out as its own chunk). */
  readonly chunkDelayMs?: number;
  readonly fault?: StreamFault;
}

interface StreamedMessage {
  readonly content: readonly { readonly type: string; readonly text?: string; readonly input?: unknown }[];
  readonly stop_reason: string;
  readonly usage: { readonly output_tokens: number };
  readonly [key: string]: unknown;
}

const DEFAULT_CHUNK_CHARS = 12;
const DROP_AFTER_MS = 30;

/** When a stream's first chunk, and its first chunk of text, were handed to the socket (ms since the epoch, fractional). */
export interface StreamTiming {
  firstChunkAt?: number;
  firstTextAt?: number;
}

/** Streams `message` into `response`, noting its timing; resolves with how it ended. */
export async function writeStream(
  response: ServerResponse,
  message: StreamedMessage,
  shape: StreamShape,
  timing: StreamTiming,
): Promise<"complete" | "dropped" | "error"> {
  const size = Math.max(1, shape.chunkChars ?? DEFAULT_CHUNK_CHARS);
  const fault = shape.fault;
  let sent = 0;
  let first = true;
  const startedAt = Date.now();
  let paced = 0;
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "request-id": String(message["id"] ?? "req"),
  });
  const write = async (event: string, data: unknown): Promise<boolean> => {
    if (response.destroyed) return false;
    // Paced by the clock, not by the sleeps: late timers do not add up over a long stream.
    if (!first && (shape.chunkDelayMs ?? 0) > 0) await sleep(startedAt + ++paced * shape.chunkDelayMs! - Date.now());
    if (response.destroyed) return false;
    // Each event is handed to the socket before the next is written: a chunk of its own.
    await new Promise<void>((resolve) =>
      response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`, () => resolve()),
    );
    const now = performance.timeOrigin + performance.now();
    if (first) timing.firstChunkAt = now;
    if (timing.firstTextAt === undefined && event === "content_block_delta") timing.firstTextAt = now;
    first = false;
    return true;
  };
  /** Whether the fault is due now: then it happens, and the stream is over. */
  const faulted = async (): Promise<"dropped" | "error" | undefined> => {
    if (fault === undefined || sent < fault.afterChars) return undefined;
    if (fault.how === "drop") {
      // The client reads what was sent before the connection goes, as it would from a real server.
      await sleep(DROP_AFTER_MS);
      response.socket?.destroy();
      return "dropped";
    }
    const type = fault.errorType ?? "overloaded_error";
    await write("error", {
      type: "error",
      error: { type, message: type === "overloaded_error" ? "Overloaded" : type },
    });
    response.end();
    return "error";
  };

  const start = {
    ...message,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...message.usage, output_tokens: 1 },
  };
  if (!(await write("message_start", { type: "message_start", message: start }))) return "dropped";
  await write("ping", { type: "ping" });
  for (const [index, block] of message.content.entries()) {
    const opening = block.type === "tool_use" ? { ...block, input: {} } : { ...block, text: "" };
    await write("content_block_start", { type: "content_block_start", index, content_block: opening });
    const whole = block.type === "tool_use" ? jsonText(block.input ?? {}) : (block.text ?? "");
    for (let offset = 0; offset < whole.length; offset += size) {
      const piece = whole.slice(offset, offset + size);
      const delta =
        block.type === "tool_use"
          ? { type: "input_json_delta", partial_json: piece }
          : { type: "text_delta", text: piece };
      if (!(await write("content_block_delta", { type: "content_block_delta", index, delta }))) return "dropped";
      sent += piece.length;
      const ended = await faulted();
      if (ended !== undefined) return ended;
    }
    await write("content_block_stop", { type: "content_block_stop", index });
  }
  const ended = await faulted();
  if (ended !== undefined) return ended;
  await write("message_delta", {
    type: "message_delta",
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  await write("message_stop", { type: "message_stop" });
  response.end();
  return "complete";
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
