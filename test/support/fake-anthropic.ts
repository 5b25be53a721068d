/**
 * A scripted fake of the Anthropic Messages API (`POST /v1/messages`) on 127.0.0.1, for tests and
 * benchmarks that drive the real `@anthropic-ai/sdk` client over HTTP.
 *
 * Replies come from a script (one per request, in order) or a responder function, and can be text,
 * tool calls, HTTP errors (429 with `retry-after`, 500, 529), dropped connections, malformed JSON or a
 * request that never answers. Every request is recorded, including the ones the client aborted.
 *
 * It misbehaves as real models do, on cue: an answer cut off at `max_tokens` (`reply.cut`), a
 * refusal (`reply.refusal`), text where a tool was forced, a forced tool called with the wrong input
 * or a tool that was not offered (`reply.toolUse` with any name and input), an empty answer, a tool
 * input sent as the JSON text given (`new RawJson(text)`: nested deeper than `JSON.stringify` can write).
 *
 * The Models API (`GET /v1/models/{id}`, what the runtime asks a model's output limit of) answers from
 * `models`, else 404 as a server without that API does; these lookups are kept apart (`modelLookups`)
 * and take no reply from the script.
 *
 * A request with `stream: true` is answered as the API streams (fake-stream.ts): server-sent events
 * over chunked transfer, each piece its own chunk, paced by `stream.chunkDelayMs`; a reply's `stream`
 * shapes its own stream and may cut it (`reply.streamDrop`, `reply.streamError`).
 *
 * Usage is accounted as the real API does (fake-usage.ts): input tokens from the request's size,
 * output tokens from the reply's, and prompt caching by `cache_control` breakpoints; a reply may
 * give its own usage instead.
 *
 * This module and fake-usage.ts import nothing but Node built-ins, so a benchmark can transpile and
 * load them as they are.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { jsonText, PromptCache, RequestRefused, type CacheOptions } from "./fake-usage.js";
import { writeStream, type StreamShape, type StreamTiming } from "./fake-stream.js";

export type { StreamFault, StreamShape } from "./fake-stream.js";
export { RawJson } from "./fake-usage.js";

export interface FakeUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens?: number;
  readonly cache_read_input_tokens?: number;
}

export type FakeContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown };

interface Delayed {
  /** Wait this long before answering (or dropping). */
  readonly delayMs?: number;
}

export type FakeReply =
  | (Delayed & {
      readonly kind: "message";
      readonly content: readonly FakeContentBlock[];
      readonly stopReason?: string;
      readonly usage?: FakeUsage;
      /** How it streams, when the request asks to stream (else the server's `stream`). */
      readonly stream?: StreamShape;
    })
  | (Delayed & {
      readonly kind: "error";
      readonly status: number;
      readonly body?: unknown;
      readonly headers?: Readonly<Record<string, string>>;
    })
  | (Delayed & { readonly kind: "drop" })
  | (Delayed & { readonly kind: "malformed" })
  | { readonly kind: "hang" };

export type RequestState = "pending" | "answered" | "aborted";

export interface FakeRequest {
  /** 0-based arrival order. */
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body (undefined when `keepBodies` is false). */
  readonly body: MessagesBody | undefined;
  readonly receivedAt: number;
  /** `aborted` when the client closed the connection before the reply was sent. */
  state: RequestState;
  /** The usage the reply reported, once a message was sent. */
  usage?: FakeUsage;
  /** A streamed answer: when its first chunks were written and how it ended. */
  stream?: StreamTiming & { end?: "complete" | "dropped" | "error"; endedAt?: number };
}

/** The parts of a Messages request body the tests look at. */
export interface MessagesBody {
  readonly model: string;
  readonly max_tokens: number;
  readonly system?: string | readonly { readonly type: string; readonly text: string }[];
  readonly messages: readonly {
    readonly role: string;
    readonly content: string | readonly Record<string, unknown>[];
  }[];
  readonly tools?: readonly { readonly name: string; readonly input_schema: unknown }[];
  readonly tool_choice?: { readonly type: string; readonly name?: string };
  readonly [key: string]: unknown;
}

export type Responder = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

export interface FakeServerOptions extends CacheOptions {
  /** Replies in request order; when it runs out, `respond` answers (or a non-retryable 500). */
  readonly script?: readonly FakeReply[];
  readonly respond?: Responder;
  /** Added before every reply. */
  readonly latencyMs?: number;
  /** Keep request bodies (default true); a benchmark with thousands of requests turns this off. */
  readonly keepBodies?: boolean;
  /** What `GET /v1/models/{id}` says of each model: its `max_tokens`. Others are 404. */
  readonly models?: Readonly<Record<string, { readonly maxTokens: number }>>;
  /** Added before every answer of `GET /v1/models/{id}` (a slow Models API). */
  readonly modelsLatencyMs?: number;
  /** How streamed answers are paced (a reply's own `stream` wins). */
  readonly stream?: StreamShape;
}

export interface FakeServer {
  /** Base URL for the SDK's `baseURL`, e.g. `http://127.0.0.1:43211`. */
  readonly url: string;
  readonly requests: readonly FakeRequest[];
  /** The model ids `GET /v1/models/{id}` was asked about, in order. */
  readonly modelLookups: readonly string[];
  /** Appends replies to the script. */
  push(...replies: FakeReply[]): void;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

let toolUseCounter = 0;

/** Reply builders. */
export const reply = {
  text(text: string, options: Delayed & { usage?: FakeUsage; stream?: StreamShape } = {}): FakeReply {
    return { kind: "message", content: [{ type: "text", text }], stopReason: "end_turn", ...options };
  },
  /** A streamed answer whose connection drops after `afterChars` characters of `text` (whole when not streamed). */
  streamDrop(text: string, afterChars: number): FakeReply {
    return reply.text(text, { stream: { fault: { afterChars, how: "drop" } } });
  },
  /** A streamed answer that gets an `event: error` after `afterChars` characters (`overloaded_error` by default). */
  streamError(text: string, afterChars: number, errorType = "overloaded_error"): FakeReply {
    return reply.text(text, { stream: { fault: { afterChars, how: "error", errorType } } });
  },
  /** An answer cut off at `max_tokens`: this text so far ("" for none at all). */
  cut(text: string, options: Delayed & { usage?: FakeUsage } = {}): FakeReply {
    return {
      kind: "message",
      content: text === "" ? [] : [{ type: "text", text }],
      stopReason: "max_tokens",
      ...options,
    };
  },
  /** A refusal (`stop_reason: "refusal"`), with what the model said, if anything. */
  refusal(text = "", options: Delayed & { usage?: FakeUsage } = {}): FakeReply {
    return { kind: "message", content: text === "" ? [] : [{ type: "text", text }], stopReason: "refusal", ...options };
  },
  /** An answer with no content at all. */
  empty(options: Delayed & { usage?: FakeUsage } = {}): FakeReply {
    return { kind: "message", content: [], stopReason: "end_turn", ...options };
  },
  toolUse(
    calls: readonly { name: string; input: unknown }[],
    options: Delayed & { text?: string; usage?: FakeUsage } = {},
  ): FakeReply {
    const blocks: FakeContentBlock[] = options.text === undefined ? [] : [{ type: "text", text: options.text }];
    for (const call of calls)
      blocks.push({ type: "tool_use", id: `toolu_${++toolUseCounter}`, name: call.name, input: call.input });
    return {
      kind: "message",
      content: blocks,
      stopReason: "tool_use",
      ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
      ...(options.usage ? { usage: options.usage } : {}),
    };
  },
  error(
    status: number,
    options: Delayed & { retryAfterSeconds?: number; shouldRetry?: boolean; message?: string } = {},
  ): FakeReply {
    const headers: Record<string, string> = {};
    if (options.retryAfterSeconds !== undefined) headers["retry-after"] = String(options.retryAfterSeconds);
    if (options.shouldRetry !== undefined) headers["x-should-retry"] = String(options.shouldRetry);
    const type =
      status === 429
        ? "rate_limit_error"
        : status === 529
          ? "overloaded_error"
          : status >= 500
            ? "api_error"
            : "invalid_request_error";
    const body = { type: "error", error: { type, message: options.message ?? `fake ${status}` } };
    return {
      kind: "error",
      status,
      body,
      headers,
      ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
    };
  },
  drop(options: Delayed = {}): FakeReply {
    return { kind: "drop", ...options };
  },
  malformed(options: Delayed = {}): FakeReply {
    return { kind: "malformed", ...options };
  },
  hang(): FakeReply {
    return { kind: "hang" };
  },
};

export async function startFakeAnthropic(options: FakeServerOptions = {}): Promise<FakeServer> {
  const script = [...(options.script ?? [])];
  const requests: FakeRequest[] = [];
  const modelLookups: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();
  const keepBodies = options.keepBodies ?? true;
  const cache = new PromptCache(options);

  const server = createServer((incoming, response) => {
    void handle(incoming, response);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await readBody(incoming);
    const model = /^\/v1\/models\/([^/?]+)/.exec(incoming.url ?? "");
    if (incoming.method === "GET" && model !== null) {
      if ((options.modelsLatencyMs ?? 0) > 0) await sleep(options.modelsLatencyMs!);
      answerModel(decodeURIComponent(model[1]!), response);
      return;
    }
    const request: FakeRequest = {
      index: requests.length,
      method: incoming.method ?? "",
      path: incoming.url ?? "",
      headers: incoming.headers,
      body: keepBodies && raw.length > 0 ? (JSON.parse(raw) as MessagesBody) : undefined,
      receivedAt: Date.now(),
      state: "pending",
    };
    requests.push(request);
    response.on("close", () => {
      if (!response.writableFinished && request.state === "pending") request.state = "aborted";
    });
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }

    // What the Messages API refuses before any model sees it.
    const invalid = invalidConversation(request.body);
    const next = invalid === undefined ? script.shift() : reply.error(400, { message: invalid });
    const chosen =
      next ??
      (options.respond
        ? await options.respond(request)
        : reply.error(500, { shouldRetry: false, message: "fake server: script exhausted" }));
    if (chosen.kind === "hang") return;
    const delay = (options.latencyMs ?? 0) + (chosen.delayMs ?? 0);
    if (delay > 0) await sleep(delay);
    if (request.state === "aborted") return;
    send(chosen, request, response, raw);
  }

  function answerModel(id: string, response: ServerResponse): void {
    modelLookups.push(id);
    const known = options.models?.[id];
    const [status, body] =
      known === undefined
        ? [404, { type: "error", error: { type: "not_found_error", message: `model: ${id}` } }]
        : [
            200,
            { type: "model", id, display_name: id, created_at: "2026-01-01T00:00:00Z", max_tokens: known.maxTokens },
          ];
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  }

  function send(
    chosen: Exclude<FakeReply, { kind: "hang" }>,
    request: FakeRequest,
    response: ServerResponse,
    raw: string,
  ): void {
    switch (chosen.kind) {
      case "drop":
        request.state = "answered";
        response.socket?.destroy();
        return;
      case "malformed":
        request.state = "answered";
        if (parseBody(raw)["stream"] === true) {
          response.writeHead(200, { "content-type": "text/event-stream" });
          response.end(
            'event: message_start\ndata: {"type": "message_start", "message": {"id": "msg_broken", "content": [\n\n',
          );
          return;
        }
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"id": "msg_broken", "content": [');
        return;
      case "error":
        request.state = "answered";
        response.writeHead(chosen.status, { "content-type": "application/json", ...chosen.headers });
        response.end(JSON.stringify(chosen.body ?? {}));
        return;
      case "message": {
        const body = request.body ?? parseBody(raw);
        let accounted: ReturnType<PromptCache["account"]>;
        try {
          accounted = cache.account(body, chosen.content);
        } catch (error) {
          if (!(error instanceof RequestRefused)) throw error;
          send(
            reply.error(400, { message: error.message }) as Exclude<FakeReply, { kind: "hang" }>,
            request,
            response,
            raw,
          );
          return;
        }
        request.state = "answered";
        const model = typeof body["model"] === "string" ? body["model"] : "unknown";
        const message = {
          id: `msg_${request.index}`,
          type: "message",
          role: "assistant",
          model,
          content: chosen.content,
          stop_reason: chosen.stopReason ?? "end_turn",
          stop_sequence: null,
          usage: chosen.usage ?? accounted.usage,
        };
        request.usage = message.usage;
        if (body["stream"] === true) {
          const timing: NonNullable<FakeRequest["stream"]> = {};
          request.stream = timing;
          void writeStream(response, message, { ...options.stream, ...chosen.stream }, timing).then((end) => {
            timing.end = end;
            timing.endedAt = performance.timeOrigin + performance.now();
            if (end === "complete") accounted.commit();
          });
          return;
        }
        response.writeHead(200, { "content-type": "application/json", "request-id": `req_${request.index}` });
        response.end(jsonText(message));
        accounted.commit();
        return;
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    modelLookups,
    push: (...replies) => void script.push(...replies),
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The text of the last user message of a request (its string content, or its blocks' texts joined as sections). */
/** The turn a request asks for: how many replies the conversation holds already. */
export function turnOf(request: FakeRequest): number {
  return (request.body?.messages ?? []).filter((message) => message.role === "assistant").length;
}

export function lastUserText(request: FakeRequest): string {
  const messages = request.body?.messages ?? [];
  const last = [...messages].reverse().find((message) => message.role === "user");
  if (last === undefined) return "";
  if (typeof last.content === "string") return last.content;
  return last.content
    .map((block) =>
      typeof block["text"] === "string" ? block["text"] : typeof block["content"] === "string" ? block["content"] : "",
    )
    .join("\n\n");
}

/**
 * What the last user message asks: its last text block (a session's task, a judgment's question),
 * without the blocks before it (memory, context, values), which requests put first for caching.
 */
export function askedText(request: FakeRequest): string {
  const messages = request.body?.messages ?? [];
  const last = [...messages].reverse().find((message) => message.role === "user");
  if (last === undefined) return "";
  if (typeof last.content === "string") return last.content;
  const texts = last.content.filter((block) => typeof block["text"] === "string");
  return texts.length === 0 ? lastUserText(request) : String(texts[texts.length - 1]!["text"]);
}

/** The system prompt of a request as one string. */
export function systemText(request: FakeRequest): string {
  const system = request.body?.system;
  if (system === undefined) return "";
  return typeof system === "string" ? system : system.map((block) => block.text).join("\n");
}

/** Why the Messages API would refuse this conversation, as it says it: a `tool_use` id used twice. */
function invalidConversation(body: MessagesBody | undefined): string | undefined {
  const ids = new Set<string>();
  for (const [index, message] of (body?.messages ?? []).entries()) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const [at, block] of message.content.entries()) {
      if (block["type"] !== "tool_use") continue;
      const id = String(block["id"]);
      if (ids.has(id)) return `messages.${index}.content.${at}: \`tool_use\` ids must be unique`;
      ids.add(id);
    }
  }
  return undefined;
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    incoming.on("error", reject);
  });
}

function parseBody(raw: string): Record<string, unknown> {
  try {
    const body: unknown = JSON.parse(raw);
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
