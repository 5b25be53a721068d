/**
 * An MCP server that never answers a tool call, and asks the client for sampling, its roots and an
 * elicitation instead: the step's time limit ends the session, the server is told the call is
 * cancelled (`notifications/cancelled`), each of its requests is refused (prosec advertises no client
 * capability), and the server is stopped with the run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropic, turnOf, type FakeServer } from "../support/fake-anthropic.js";
import { childrenRunning, writeMcpJson } from "../support/mcp-servers.js";
import { at, failingRun, temporaryFolder } from "../runtime/helpers.js";

const SILENT = join(import.meta.dirname, "../fixtures/mcp/silent-server.mjs");

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Message {
  readonly id?: string | number;
  readonly method?: string;
  readonly params?: { readonly requestId?: number };
  readonly error?: { readonly code: number };
}

describe("an MCP server that never answers", () => {
  it("is cancelled at the step's time limit, its requests refused, and stopped", async () => {
    const cwd = temporaryFolder("prosec-mcp-silent-");
    const log = join(cwd, "received.jsonl");
    writeMcpJson(cwd, { silent: { command: process.execPath, args: [SILENT, log] } });
    const server = await startFakeAnthropic({
      respond: (request) =>
        turnOf(request) === 0 ? reply.toolUse([{ name: "mcp__silent__wait", input: {} }]) : reply.text("done"),
    });
    servers.push(server);
    const { error } = await failingRun(
      server,
      (rt) =>
        rt.session({
          at: at(1),
          binding: "x",
          prompt: "Go",
          agent: { name: "a", permissions: { mcp: ["silent/wait"] } },
        }),
      { cwd, stepTimeoutMs: 1500 },
    );
    expect((error as Error).message).toContain("longer than its time limit of 1500 ms");
    expect(childrenRunning(SILENT)).toEqual([]);
    const received = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Message);
    const call = received.find((message) => message.method === "tools/call")!;
    expect(received).toContainEqual(
      expect.objectContaining({
        method: "notifications/cancelled",
        params: expect.objectContaining({ requestId: call.id }),
      }),
    );
    for (const asked of ["sampling", "roots", "elicit"])
      expect(received.find((message) => message.id === asked)?.error?.code).toBe(-32601);
  });
});
