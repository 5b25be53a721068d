/**
 * A remote MCP server (streamable HTTP) that answers a call with more than a message may be: a JSON
 * body of 12 MB, or one server-sent event of 12 MB. The stdio transport refuses a message over 10 MB;
 * the HTTP one read either whole (tools/mcp/bounded-fetch.ts). Each is now a tool error saying why,
 * read no further than the bound, the server is treated as one that stopped (started again for the
 * next call), and the run goes on. The server is written by hand: a hostile one need not use the SDK.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../runtime/index.js";
import { reply, startFakeAnthropic, turnOf, type FakeRequest, type FakeServer } from "../support/fake-anthropic.js";
import { writeMcpJson } from "../support/mcp-servers.js";
import { at, runAgainst, temporaryFolder } from "../runtime/helpers.js";

const FLOOD = 12 * 1024 * 1024;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** The hostile server: where it listens, and the tools called, in order. */
interface Flooder {
  readonly url: string;
  readonly calls: string[];
}

async function startFlooder(): Promise<Flooder> {
  const calls: string[] = [];
  const answer = (response: ServerResponse, id: unknown, result: unknown): void => {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, result }));
  };
  const handle = (request: IncomingMessage, response: ServerResponse, body: string): void => {
    if (request.method !== "POST") return void response.writeHead(405).end();
    const message = JSON.parse(body) as { id?: unknown; method: string; params?: Record<string, unknown> };
    if (message.id === undefined) return void response.writeHead(202).end();
    if (message.method === "initialize")
      return answer(response, message.id, {
        protocolVersion: message.params!["protocolVersion"],
        capabilities: { tools: {} },
        serverInfo: { name: "flooder", version: "1.0.0" },
      });
    if (message.method === "tools/list")
      return answer(response, message.id, {
        tools: ["json_flood", "event_flood", "count"].map((name) => ({ name, inputSchema: { type: "object" } })),
      });
    if (message.method !== "tools/call") return answer(response, message.id, {});
    const name = String(message.params!["name"]);
    calls.push(name);
    const text = (value: string): string =>
      JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: value }] } });
    if (name === "count")
      return answer(response, message.id, { content: [{ type: "text", text: `call ${calls.length}` }] });
    if (name === "json_flood") {
      response.writeHead(200, { "content-type": "application/json" });
      response.on("error", () => undefined);
      return void response.end(text("x".repeat(FLOOD)));
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.on("error", () => undefined);
    response.end(`event: message\ndata: ${text("y".repeat(FLOOD))}\n\n`);
  };
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => handle(request, response, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/mcp`, calls };
}

/** Every tool result the model was sent, in order. */
function results(server: FakeServer): { error: boolean; text: string }[] {
  return server.requests
    .at(-1)!
    .body!.messages.flatMap((message) => (typeof message.content === "string" ? [] : message.content))
    .filter((block) => (block as { type: string }).type === "tool_result")
    .map((block) => {
      const result = block as { is_error?: boolean; content: unknown };
      return { error: result.is_error === true, text: String(result.content) };
    });
}

describe("a remote MCP server that floods a call's answer", () => {
  it("a JSON body or an event over 10 MB is a tool error, the server is started again, and the run goes on", async () => {
    const flooder = await startFlooder();
    const cwd = temporaryFolder("prosec-mcp-http-flood-");
    writeMcpJson(cwd, { remote: { type: "http", url: flooder.url } });
    const calls = ["mcp__remote__json_flood", "mcp__remote__count", "mcp__remote__event_flood"];
    const model = await startFakeAnthropic({
      respond: (request: FakeRequest) => {
        const name = calls[turnOf(request)];
        return name === undefined ? reply.text("done") : reply.toolUse([{ name, input: {} }]);
      },
    });
    closers.push(() => model.close());
    const { result } = await runAgainst(
      model,
      (rt: Runtime) =>
        rt.session({
          at: at(1),
          binding: "x",
          prompt: "Go",
          agent: { name: "reader", permissions: { mcp: ["remote"] } },
        }),
      { cwd },
    );
    expect(result).toBe("done");
    expect(flooder.calls).toEqual(["json_flood", "count", "event_flood"]);
    const [json, count, event] = results(model) as [
      { error: boolean; text: string },
      { error: boolean; text: string },
      { error: boolean; text: string },
    ];
    const refused =
      "The MCP server remote stopped while the call was running: The MCP server sent a message over 10 MB; prosec does not read it.";
    expect(json).toEqual({ error: true, text: expect.stringContaining(refused) });
    expect(count).toEqual({ error: false, text: "call 2" });
    expect(event).toEqual({ error: true, text: expect.stringContaining(refused) });
  });
});
