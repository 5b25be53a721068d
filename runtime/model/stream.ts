/**
 * One Messages API request, sent whole or streamed (`client.messages.stream`). A streamed request
 * gives its text as it arrives and ends with the same message the whole request returns: content
 * blocks (tool calls with their parsed input), usage with cache tokens, stop reason. What the run
 * records is that message, so resuming and replaying do not depend on how it came.
 *
 * The SDK retries a request that fails before its answer begins (429, 529, 5xx, a refused
 * connection). A stream cut short after it began (the connection dropped, an `error` event such as
 * `overloaded_error`) is retried here the same way: as many times as the client's `maxRetries`, after
 * the same backoff, and the text it gave so far is abandoned (`StreamListener.abandon`). Once the
 * retries are spent, a dropped stream fails as a dropped connection does (`APIConnectionError`), and an
 * error event as the API error it carries (an overloaded model may then fall back: fallback.ts).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { APIConnectionError, APIError } from "@anthropic-ai/sdk/core/error";
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { isAbortError } from "../errors.js";
import { sleep } from "../abortable-sleep.js";

/** What a streamed request tells as it goes. */
export interface StreamListener {
  /** Text of the answer, as it arrives. */
  text(delta: string): void;
  /** The text given since the attempt began will not be in the answer: the stream was cut. */
  abandon(reason: string): void;
  /** The message is complete. */
  end(): void;
}

/** The SDK's backoff between retries: 0.5 s doubling up to 8 s, less up to a quarter of jitter. */
const INITIAL_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 8000;

/** Error events of a stream that the SDK would retry as statuses (5xx, 429): the rest fail at once. */
const RETRIED_ERROR_TYPES: ReadonlySet<string> = new Set([
  "overloaded_error",
  "api_error",
  "rate_limit_error",
  "timeout_error",
]);

/** A request's answer, and the usage the server reported for attempts whose stream was cut (billed too). */
export interface Answered {
  readonly message: Message;
  readonly cut: ReadonlyArray<Message["usage"]>;
}

/** The message of `params`: streamed to `listener` when there is one, else sent whole. */
export async function requestMessage(
  client: Anthropic,
  params: MessageCreateParamsNonStreaming,
  signal: AbortSignal,
  listener: StreamListener | undefined,
): Promise<Answered> {
  if (listener === undefined) return { message: await client.messages.create(params, { signal }), cut: [] };
  const cut: Array<Message["usage"]> = [];
  for (let retry = 0; ; retry++) {
    let began = false;
    let stream: ReturnType<typeof client.messages.stream> | undefined;
    try {
      stream = client.messages.stream(params, { signal });
      stream.on("connect", () => void (began = true));
      stream.on("text", (delta: string) => listener.text(delta));
      const message = await stream.finalMessage();
      listener.end();
      return { message, cut };
    } catch (error) {
      if (!began || signal.aborted || isAbortError(error) || !retried(error)) throw error;
      const partial = stream?.currentMessage?.usage;
      if (partial !== undefined) cut.push(partial);
      listener.abandon(describeCut(error));
      if (retry >= client.maxRetries) throw finalError(error);
      await sleep(retryDelay(retry), signal);
    }
  }
}

/** Whether a stream that began and then failed this way is sent again. */
function retried(error: unknown): boolean {
  if (error instanceof APIError && error.status === undefined && !(error instanceof APIConnectionError))
    return RETRIED_ERROR_TYPES.has(error.type ?? "");
  // A garbled answer fails at once, as a whole one does; a dropped connection or a stream that ended
  // before `message_stop` is sent again.
  return !(error instanceof SyntaxError);
}

function finalError(error: unknown): unknown {
  if (error instanceof APIError) return error;
  return new APIConnectionError({
    message: `The answer's stream was cut: ${describeCut(error)}`,
    cause: error as Error,
  });
}

function describeCut(error: unknown): string {
  if (error instanceof APIError && error.type !== null && error.type !== undefined)
    return `${error.type}: ${error.apiMessage ?? error.message}`;
  const message = error instanceof Error ? error.message : String(error);
  return message === "" ? "the stream ended early" : message;
}

function retryDelay(retry: number): number {
  const delay = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** retry, MAX_RETRY_DELAY_MS);
  return delay * (1 - Math.random() * 0.25);
}
