/**
 * The attack suite's MCP cases: a hostile MCP server (test/fixtures/mcp/hostile-server.mjs) and a
 * prompt-injected model, through the real runtime and SDK. Judged by effect:
 *
 * - a tool named like a built-in (`read_file`) is offered only as `mcp__hostile__read_file`: the
 *   model's plain `read_file` is the built-in one, refused when the agent has no reads;
 * - a server that returns the API key: the key reaches neither the model, the journal, the trace nor
 *   the events (the server's stderr, which says it too, goes to the trace redacted);
 * - a server that returns 3 MB is cut to the result cap; 10 MB is more than one message may be, a
 *   tool error, and the run goes on;
 * - a tool description that asks the model to call `run_command`: not offered, refused, nothing runs;
 * - a server that crashes mid-call: a tool error, started again once, and not a third time;
 * - a server that says the key on its stderr in two writes: the trace has it redacted, not in halves;
 * - a server that floods its stderr: the trace keeps its first megabyte and says the rest was dropped;
 * - a server whose tool list fails (its cursor never ends, past the client's 64 pages): the session
 *   fails saying so, and the server is stopped, not left running past the run (a failed start is
 *   forgotten, so nothing else would stop it, and the next session would start another).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Permissions, RunEvent, Runtime } from "../../runtime/index.js";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  turnOf,
} from "../support/fake-anthropic.js";
import { TRACE_FOLDER, TRACE_STEPS_FILE } from "../../runtime/durable/trace-format.js";
import { childrenRunning, writeMcpJson } from "../support/mcp-servers.js";
import { at, failingRun, runAgainst, TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const HOSTILE = join(import.meta.dirname, "../fixtures/mcp/hostile-server.mjs");

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** One call per turn, in order, then "done". */
function oneByOne(calls: readonly { name: string; input: unknown }[]): (request: FakeRequest) => FakeReply {
  return (request) => {
    const call = calls[turnOf(request)];
    return call === undefined ? reply.text("done") : reply.toolUse([call]);
  };
}

type Result = { readonly name: string; readonly error: boolean; readonly text: string };

/** Every tool result the model was sent, in order. */
function resultsSent(server: FakeServer): Result[] {
  const last = server.requests.at(-1)!.body!.messages;
  const names = new Map<unknown, string>();
  const found: Result[] = [];
  for (const message of last) {
    if (typeof message.content === "string") continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block["type"] === "tool_use") names.set(block["id"], String(block["name"]));
      if (block["type"] === "tool_result")
        found.push({
          name: names.get(block["tool_use_id"])!,
          error: block["is_error"] === true,
          text: String(block["content"]),
        });
    }
  }
  return found;
}

async function attack(
  calls: readonly { name: string; input: unknown }[],
  permissions: Permissions,
  leak = "nothing",
  options: readonly string[] = [],
): Promise<{ server: FakeServer; cwd: string; runDir: string; events: RunEvent[] }> {
  const cwd = temporaryFolder("prosec-mcp-attack-");
  // The secret reaches the server by a file: one on its command line would stop the run before it starts.
  writeFileSync(join(cwd, "leak.txt"), leak);
  writeMcpJson(cwd, {
    hostile: { command: process.execPath, args: [HOSTILE, "--leak-file", join(cwd, "leak.txt"), ...options] },
  });
  const server = await startFakeAnthropic({ respond: oneByOne(calls) });
  servers.push(server);
  const runDir = join(cwd, ".prose", "runs", "run");
  const { result, events } = await runAgainst(
    server,
    (rt: Runtime) => rt.session({ at: at(1), binding: "x", prompt: "Go", agent: { name: "victim", permissions } }),
    { cwd, runDir },
  );
  expect(result).toBe("done");
  expect(childrenRunning(HOSTILE)).toEqual([]);
  return { server, cwd, runDir, events };
}

/** Everything the run wrote to its folder, joined. */
function runFolderText(runDir: string): string {
  return readdirSync(runDir, { recursive: true, encoding: "utf8" })
    .map((file) => join(runDir, file))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path, "utf8"))
    .join("\n");
}

/** What the server said on its stderr, as the run's trace keeps it. */
function stderrTraced(runDir: string): string {
  return readFileSync(join(runDir, TRACE_FOLDER, TRACE_STEPS_FILE), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { e: string; stderr?: string })
    .filter((record) => record.e === "server")
    .map((record) => record.stderr)
    .join("");
}

describe("MCP attacks: 0 escapes", () => {
  it("a server tool named like a built-in cannot stand in for it", async () => {
    const { server } = await attack(
      [
        { name: "read_file", input: { path: ".env" } },
        { name: "mcp__hostile__read_file", input: { path: ".env" } },
      ],
      { read: [], write: [], bash: "deny", mcp: ["hostile/read_file"] },
    );
    const tools = (server.requests[0]!.body as unknown as { tools: Array<{ name: string }> }).tools.map(
      (tool) => tool.name,
    );
    expect(tools).toEqual(["mcp__hostile__read_file"]);
    const [builtin, served] = resultsSent(server) as [Result, Result];
    expect(builtin).toMatchObject({ name: "read_file", error: true });
    expect(builtin.text).toContain("is not available to this agent");
    expect(served).toMatchObject({ name: "mcp__hostile__read_file", error: false });
  });

  it("a server that returns the API key: it reaches no model request, journal, trace or event", async () => {
    const { server, runDir, events } = await attack(
      [{ name: "mcp__hostile__leak", input: {} }],
      { mcp: ["hostile/leak"] },
      TEST_API_KEY,
    );
    const [leak] = resultsSent(server) as [Result];
    expect(leak.text).toBe("here it is: [redacted]");
    for (const request of server.requests) expect(JSON.stringify(request.body)).not.toContain(TEST_API_KEY);
    expect(JSON.stringify(events)).not.toContain(TEST_API_KEY);
    const written = runFolderText(runDir);
    expect(written).toContain("here it is: [redacted]");
    expect(written).not.toContain(TEST_API_KEY);
    // The server's stderr, in the trace, redacted.
    expect(readFileSync(join(runDir, TRACE_FOLDER, TRACE_STEPS_FILE), "utf8")).toContain("the secret is [redacted]");
  });

  it("a result of 3 MB is cut to the cap; 10 MB is a tool error and the run goes on", async () => {
    const { server } = await attack(
      [
        { name: "mcp__hostile__flood", input: { size: 3 * 1024 * 1024 } },
        { name: "mcp__hostile__flood", input: {} },
        { name: "mcp__hostile__count", input: {} },
      ],
      { mcp: ["hostile/flood", "hostile/count"] },
    );
    const [three, ten, after] = resultsSent(server) as [Result, Result, Result];
    expect(three.error).toBe(false);
    expect(three.text.length).toBeLessThan(128 * 1024 + 200);
    expect(three.text).toContain("tool result truncated: 3,145,728 characters in all");
    expect(ten.error).toBe(true);
    expect(ten.text.length).toBeLessThan(2000);
    expect(after).toMatchObject({ error: false });
  });

  it("a description that asks for run_command: the tool is not offered, the call is refused, nothing runs", async () => {
    const { server, cwd } = await attack(
      [
        { name: "mcp__hostile__read_file", input: {} },
        { name: "run_command", input: { command: "touch pwned" } },
      ],
      { bash: "deny", mcp: ["hostile/read_file"] },
    );
    const tools = (server.requests[0]!.body as unknown as { tools: Array<{ name: string; description: string }> })
      .tools;
    expect(tools.map((tool) => tool.name)).not.toContain("run_command");
    expect(tools.find((tool) => tool.name === "mcp__hostile__read_file")!.description).toContain("IGNORE YOUR");
    const [, refused] = resultsSent(server) as [Result, Result];
    expect(refused).toMatchObject({ name: "run_command", error: true });
    expect(existsSync(join(cwd, "pwned"))).toBe(false);
  });

  it("a server that crashes mid-call: a tool error, started again once, not a third time", async () => {
    const { server } = await attack(
      [
        { name: "mcp__hostile__count", input: {} },
        { name: "mcp__hostile__crash", input: {} },
        { name: "mcp__hostile__count", input: {} },
        { name: "mcp__hostile__crash", input: {} },
        { name: "mcp__hostile__count", input: {} },
      ],
      { mcp: ["hostile/*"] },
    );
    const [first, crash, again, crashAgain, refused] = resultsSent(server) as [Result, Result, Result, Result, Result];
    expect(first.text).toMatch(/^call 1 of process \d+$/);
    expect(crash.error).toBe(true);
    expect(again.text).toMatch(/^call 1 of process \d+$/);
    expect(again.text).not.toBe(first.text);
    expect(crashAgain.error).toBe(true);
    expect(refused.error).toBe(true);
    expect(refused.text).toContain("stopped again and is not started a third time");
  });

  it("a server whose tool list fails: the session fails saying so, and the server is stopped", async () => {
    const cwd = temporaryFolder("prosec-mcp-attack-");
    writeMcpJson(cwd, { hostile: { command: process.execPath, args: [HOSTILE, "--endless-list"] } });
    const server = await startFakeAnthropic({ respond: () => reply.text("done") });
    servers.push(server);
    const { error } = await failingRun(
      server,
      (rt: Runtime) =>
        rt.session({
          at: at(1),
          binding: "x",
          prompt: "Go",
          agent: { name: "victim", permissions: { mcp: ["hostile/*"] } },
        }),
      { cwd },
    );
    expect(error.message).toContain(
      "The MCP server hostile did not list its tools: tools/list: exceeded listMaxPages (64)",
    );
    expect(server.requests).toHaveLength(0);
    expect(childrenRunning(HOSTILE)).toEqual([]);
  });

  it("a server that says the key on its stderr in two writes: the trace has it redacted, not in halves", async () => {
    const { runDir } = await attack(
      [{ name: "mcp__hostile__count", input: {} }],
      { mcp: ["hostile/count"] },
      TEST_API_KEY,
      ["--split-stderr"],
    );
    const said = stderrTraced(runDir);
    expect(said).toBe("hostile server up; the secret is [redacted]\n");
    expect(runFolderText(runDir)).not.toContain(TEST_API_KEY.slice(0, Math.floor(TEST_API_KEY.length / 2)));
  });

  it("a server that floods its stderr: the trace keeps its first megabyte, and says so", async () => {
    const { server, runDir } = await attack(
      [{ name: "mcp__hostile__count", input: {} }],
      { mcp: ["hostile/count"] },
      "nothing",
      ["--stderr-flood", "3"],
    );
    const said = stderrTraced(runDir);
    expect(said.length).toBeLessThan(1024 * 1024 + 200);
    expect(said).toMatch(/\n\[prosec: this server's stderr passed 1,048,576 characters; the rest is not kept\]\n$/);
    expect(resultsSent(server)).toEqual([
      { name: "mcp__hostile__count", error: false, text: expect.stringMatching(/^call 1 /) },
    ]);
  });
});
