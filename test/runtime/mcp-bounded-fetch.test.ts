/**
 * The bound on what a streamable HTTP MCP server sends (runtime/tools/mcp/bounded-fetch.ts): a JSON
 * body counted whole; an event stream event by event, so a long-lived stream of small events passes
 * however much it carries in all, an event's blank line is found where a chunk boundary cuts it, and
 * one event past the bound fails the body and is reported.
 */
import { describe, expect, it } from "vitest";
import { boundedFetch } from "../../runtime/tools/mcp/bounded-fetch.js";

const LIMIT = 4096;

/** A fetch that answers with `chunks` as the body, of the content type given. */
function serving(type: string, chunks: readonly string[]): typeof fetch {
  return () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    return Promise.resolve(new Response(body, { headers: { "content-type": type } }));
  };
}

async function read(
  type: string,
  chunks: readonly string[],
): Promise<{ text?: string; error?: string; told: string[] }> {
  const told: string[] = [];
  const response = await boundedFetch((message) => told.push(message), LIMIT, serving(type, chunks))("http://mcp/");
  try {
    return { text: await response.text(), told };
  } catch (error) {
    return { error: (error as Error).message, told };
  }
}

describe("a streamable HTTP server's answers, bounded", () => {
  it("passes an event stream of small events whatever it carries in all", async () => {
    const event = `event: message\ndata: ${"a".repeat(1000)}\n\n`;
    const { text, told } = await read(
      "text/event-stream",
      Array.from({ length: 40 }, () => event),
    );
    expect(text).toBe(event.repeat(40));
    expect(told).toEqual([]);
  });

  it("finds an event's end where a chunk boundary cuts it (\\n | \\n and \\n | \\r\\n)", async () => {
    const half = `data: ${"b".repeat(LIMIT / 2 - 10)}\n`;
    const { error } = await read("text/event-stream", [half, "\n", half, "\r\n", half, "\n\n"]);
    expect(error).toBeUndefined();
  });

  it("fails one event past the bound, and says so", async () => {
    const { error, told } = await read("text/event-stream", ["data: ", "c".repeat(LIMIT), "\n\n"]);
    expect(error).toBeDefined();
    expect(told).toEqual([`The MCP server sent a message over ${LIMIT / (1024 * 1024)} MB; prosec does not read it.`]);
  });

  it("counts a JSON body whole, blank lines or not", async () => {
    const small = await read("application/json", ['{"a":', "\n\n", '"x"}']);
    expect(small.text).toBe('{"a":\n\n"x"}');
    const large = await read("application/json", ["x".repeat(LIMIT / 2), "\n\n", "x".repeat(LIMIT / 2)]);
    expect(large.error).toBeDefined();
    expect(large.told).toHaveLength(1);
  });
});
