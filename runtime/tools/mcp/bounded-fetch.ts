/**
 * The `fetch` of a streamable HTTP MCP server's transport, with the bound the stdio transport has of
 * its own: no message over MAX_MESSAGE_BYTES. The SDK reads an HTTP server's JSON answer whole and
 * gathers an SSE event until its blank line, however long either is, so a remote server (one that
 * runs nothing on this machine) could still fill the process's memory. A JSON body is counted whole,
 * an event stream event by event; past the bound the body fails, and `overflow` is told (the server
 * is then treated as one that stopped: the call in flight fails, the next starts it again).
 */

/** As the stdio transport's buffer (the SDK's STDIO_DEFAULT_MAX_BUFFER_SIZE). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export function boundedFetch(
  overflow: (message: string) => void,
  limit = MAX_MESSAGE_BYTES,
  base: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null) return response;
    const events = (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
    const bounded = new Response(response.body.pipeThrough(limited(events, limit, overflow)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // Where the answer came from, which the transport reads to report a redirect it did not follow.
    Object.defineProperty(bounded, "url", { value: response.url });
    return bounded;
  };
}

/** Passes bytes on while the body (or, in an event stream, the current event) is within `limit`. */
function limited(
  events: boolean,
  limit: number,
  overflow: (message: string) => void,
): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  // The last two bytes seen, for an event's end (a blank line) that a chunk boundary cuts.
  let previous = [0, 0];
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.length;
      if (events) {
        const end = lastEventEnd(chunk, previous);
        if (end >= 0) size = chunk.length - end - 1;
        previous = [
          chunk.length > 1 ? chunk[chunk.length - 2]! : previous[1]!,
          chunk[chunk.length - 1] ?? previous[1]!,
        ];
      }
      if (size > limit) {
        const message = `The MCP server sent a message over ${limit / (1024 * 1024)} MB; prosec does not read it.`;
        overflow(message);
        controller.error(new Error(message));
        return;
      }
      controller.enqueue(chunk);
    },
  });
}

/** The index of the last byte in `chunk` that ends an event (`\n\n` or `\n\r\n`), or -1. */
function lastEventEnd(chunk: Uint8Array, previous: readonly number[]): number {
  const at = (index: number): number => (index >= 0 ? chunk[index]! : previous[previous.length + index]!);
  for (let index = chunk.length - 1; index >= 0; index--) {
    if (chunk[index] !== LINE_FEED) continue;
    const before = at(index - 1);
    if (before === LINE_FEED || (before === CARRIAGE_RETURN && at(index - 2) === LINE_FEED)) return index;
  }
  return -1;
}
