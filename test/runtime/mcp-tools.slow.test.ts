/**
 * MCP servers from `.mcp.json` reached through `permissions: mcp:`: the reference servers, over stdio
 * and over streamable HTTP, driven by a scripted model through the real SDK. An agent is offered only
 * the tools its globs allow, named `mcp__server__tool`; other calls are tool errors; the API key never
 * reaches a server's environment, and `${VAR}` values never reach the journal; the servers are
 * started once per run and stopped when it ends, whatever the ending.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Permissions, Runtime } from "../../runtime/index.js";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  turnOf,
} from "../support/fake-anthropic.js";
import {
  childrenRunning,
  EVERYTHING,
  MEMORY,
  startHttpEverything,
  stdioServers,
  writeMcpJson,
} from "../support/mcp-servers.js";
import { at, failingRun, runAgainst, TEST_API_KEY, temporaryFolder } from "./helpers.js";

const servers: FakeServer[] = [];
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function serve(respond: (request: FakeRequest) => FakeReply): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond });
  servers.push(server);
  return server;
}

/** The model calls `calls` in its first turn, then answers "done". */
const calling =
  (calls: readonly { name: string; input: unknown }[]) =>
  (request: FakeRequest): FakeReply =>
    turnOf(request) === 0 ? reply.toolUse(calls) : reply.text("done");

const session =
  (permissions: Permissions, name = "worker") =>
  (rt: Runtime): Promise<string> =>
    rt.session({ at: at(1), binding: "work", prompt: "Work", agent: { name, permissions } });

type Result = [string, boolean, string];

/** The tool results the model was sent in its second request: [name of call, error?, text]. */
function results(server: FakeServer): Result[] {
  const request = server.requests.find((r) => turnOf(r) === 1)!;
  const asked = request.body!.messages.at(-2)!.content as Array<Record<string, unknown>>;
  const names = new Map(asked.filter((b) => b["type"] === "tool_use").map((b) => [b["id"], String(b["name"])]));
  const answered = request.body!.messages.at(-1)!.content as Array<Record<string, unknown>>;
  return answered.map((block) => [
    names.get(block["tool_use_id"])!,
    block["is_error"] === true,
    String(block["content"]),
  ]);
}

const offered = (request: FakeRequest): string[] =>
  ((request.body as { tools?: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);

function project(): string {
  const cwd = temporaryFolder("prosec-mcp-");
  writeMcpJson(cwd, stdioServers(join(cwd, "memory.jsonl")));
  return cwd;
}

describe("MCP tools through permissions: mcp:", () => {
  it("offers only the tools the globs allow, as mcp__server__tool; other calls are tool errors naming what the agent has", async () => {
    const cwd = project();
    const server = await serve(
      calling([
        { name: "mcp__everything__echo", input: { message: "hello there" } },
        { name: "mcp__everything__get-sum", input: { a: 1, b: 2 } },
        { name: "mcp__nowhere__thing", input: {} },
        { name: "mcp__everything__get-tiny-image", input: {} },
        { name: "mcp__everything__get-resource-links", input: { count: 2 } },
      ]),
    );
    const permissions = {
      read: [],
      write: [],
      bash: "deny" as const,
      mcp: ["everything/echo", "everything/get-tiny-image", "everything/get-resource-*"],
    };
    const { result, events } = await runAgainst(server, session(permissions), { cwd });
    expect(result).toBe("done");
    // In the server's order.
    expect(offered(server.requests[0]!)).toEqual([
      "mcp__everything__echo",
      "mcp__everything__get-resource-links",
      "mcp__everything__get-resource-reference",
      "mcp__everything__get-tiny-image",
    ]);
    const [echo, sum, nowhere, image, links] = results(server) as [Result, Result, Result, Result, Result];
    expect(echo).toEqual(["mcp__everything__echo", false, "Echo: hello there"]);
    expect(sum[1]).toBe(true);
    expect(sum[2]).toContain("The tool mcp__everything__get-sum is not available to this agent");
    expect(sum[2]).toContain("mcp__everything__echo");
    expect(nowhere[1]).toBe(true);
    expect(image[1]).toBe(false);
    // The image reaches the model as an image block inside the tool result, beside the text.
    const imageResult = server.requests.find((r) => turnOf(r) === 1)!.body!.messages.at(-1)!.content as Array<{
      content: Array<{ type: string; text?: string; source?: { type: string; media_type: string; data: string } }>;
    }>;
    const imageBlocks = imageResult[3]!.content;
    expect(imageBlocks.map((block) => block.type)).toContain("image");
    const shown = imageBlocks.find((block) => block.type === "image")!.source!;
    expect(shown).toMatchObject({ type: "base64", media_type: "image/png" });
    expect(Buffer.from(shown.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(imageBlocks.some((block) => block.type === "text" && block.text !== "")).toBe(true);
    expect(links[2]).toMatch(/\[resource: .*\]\n\[resource: .*\]/);
    const toolEvents = events.filter((event) => event.type === "tool");
    expect(toolEvents.map((event) => [event.tool, event.allowed])).toEqual([
      ["mcp__everything__echo", true],
      ["mcp__everything__get-sum", false],
      ["mcp__nowhere__thing", false],
      ["mcp__everything__get-tiny-image", true],
      ["mcp__everything__get-resource-links", true],
    ]);
    expect(childrenRunning(EVERYTHING)).toEqual([]);
  });

  it("an agent without mcp: is offered no MCP tool, and no server is started", async () => {
    const cwd = temporaryFolder("prosec-mcp-");
    // A broken .mcp.json is never read when no agent has mcp:.
    writeMcpJson(cwd, { broken: { type: "sse", url: "x" } });
    const server = await serve(() => reply.text("plain"));
    const { result } = await runAgainst(server, session({ bash: "deny" }), { cwd });
    expect(result).toBe("plain");
    expect(offered(server.requests[0]!).filter((name) => name.startsWith("mcp__"))).toEqual([]);
  });

  it("a server never gets the API key or the process's secrets; a ${VAR} value is redacted from results and kept out of the journal", async () => {
    const cwd = temporaryFolder("prosec-mcp-");
    writeMcpJson(cwd, {
      everything: {
        command: process.execPath,
        args: [EVERYTHING, "stdio"],
        env: { SERVICE_TOKEN: "${I44_SERVICE_TOKEN}" },
      },
    });
    const token = "tok-0123456789-mcp-service";
    process.env["I44_SERVICE_TOKEN"] = token;
    process.env["ANTHROPIC_API_KEY"] = TEST_API_KEY;
    process.env["I44_OTHER_SECRET_KEY"] = "other-secret-value-0123456789";
    try {
      const server = await serve(calling([{ name: "mcp__everything__get-env", input: {} }]));
      const runDir = join(cwd, ".prose", "runs", "run");
      await runAgainst(server, session({ mcp: ["everything/get-env"] }), { cwd, runDir });
      const [[, error, text]] = results(server) as [[string, boolean, string]];
      expect(error).toBe(false);
      const env = JSON.parse(text) as Record<string, string>;
      expect(Object.keys(env).sort()).toEqual(expect.arrayContaining(["PATH", "SERVICE_TOKEN"]));
      expect(env["SERVICE_TOKEN"]).toBe("[redacted]");
      expect(text).not.toContain(TEST_API_KEY);
      expect(text).not.toContain("ANTHROPIC_API_KEY");
      expect(text).not.toContain("I44_OTHER_SECRET_KEY");
      const allowed = new Set(["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "SERVICE_TOKEN"]);
      expect(Object.keys(env).filter((name) => !allowed.has(name))).toEqual([]);
      expect(readFileSync(join(runDir, "journal.jsonl"), "utf8")).not.toContain(token);
    } finally {
      delete process.env["I44_SERVICE_TOKEN"];
      delete process.env["ANTHROPIC_API_KEY"];
      delete process.env["I44_OTHER_SECRET_KEY"];
    }
  });

  /** The run in `cwd` fails before its MCP server starts or any model is asked: the server would get the key. */
  async function expectKeyRefused(cwd: string): Promise<void> {
    const server = await serve(() => reply.text("never"));
    const { error } = await failingRun(server, session({ mcp: ["everything/*"] }), { cwd });
    expect(error.message).toContain("gives the MCP server everything the model's API key");
    expect(server.requests).toHaveLength(0);
    expect(childrenRunning(EVERYTHING)).toEqual([]);
  }

  it("a .mcp.json that hands a server the API key is refused before the server starts", async () => {
    const cwd = temporaryFolder("prosec-mcp-");
    writeMcpJson(cwd, {
      everything: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { KEY: "${ANTHROPIC_API_KEY}" } },
    });
    process.env["ANTHROPIC_API_KEY"] = TEST_API_KEY;
    try {
      await expectKeyRefused(cwd);
    } finally {
      delete process.env["ANTHROPIC_API_KEY"];
    }
  });

  it("nor the key inside a longer value, on its command line", async () => {
    const cwd = temporaryFolder("prosec-mcp-");
    writeMcpJson(cwd, {
      everything: { command: process.execPath, args: [EVERYTHING, "stdio", "--auth=${I44_WRAPPED}"] },
    });
    Object.assign(process.env, { ANTHROPIC_API_KEY: TEST_API_KEY, I44_WRAPPED: `Bearer ${TEST_API_KEY}` });
    try {
      await expectKeyRefused(cwd);
    } finally {
      delete process.env["ANTHROPIC_API_KEY"];
      delete process.env["I44_WRAPPED"];
    }
  });

  it("nor the auth token the model's client uses, under its name or another", async () => {
    const cwd = temporaryFolder("prosec-mcp-");
    const token = "auth-token-for-the-model-0123456789";
    for (const header of ["Bearer ${ANTHROPIC_AUTH_TOKEN}", "Bearer ${I44_TOKEN_COPY}"]) {
      writeMcpJson(cwd, {
        everything: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { AUTH: header } },
      });
      Object.assign(process.env, { ANTHROPIC_AUTH_TOKEN: token, I44_TOKEN_COPY: token });
      try {
        await expectKeyRefused(cwd);
      } finally {
        delete process.env["ANTHROPIC_AUTH_TOKEN"];
        delete process.env["I44_TOKEN_COPY"];
      }
    }
  });

  it("an unset ${VAR} fails when its server starts, naming the variable", async () => {
    const cwd = temporaryFolder("prosec-mcp-");
    writeMcpJson(cwd, {
      everything: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { X: "${I44_UNSET}" } },
    });
    const server = await serve(() => reply.text("never"));
    const { error } = await failingRun(server, session({ mcp: ["everything/echo"] }), { cwd });
    expect(error.message).toContain("needs the environment variable I44_UNSET, which is not set");
  });

  it("starts a server once per run for every agent and session, and stops it when the run fails", async () => {
    const cwd = project();
    const server = await serve((request) =>
      turnOf(request) === 0
        ? reply.toolUse([
            {
              name: "mcp__memory__create_entities",
              input: { entities: [{ name: "n", entityType: "t", observations: ["o"] }] },
            },
          ])
        : reply.text("ok"),
    );
    const pids = new Set<number>();
    const { error } = await failingRun(
      server,
      async (rt) => {
        await session({ mcp: ["memory/*"] }, "a")(rt);
        pids.add(childrenRunning(MEMORY)[0]!);
        await session({ mcp: ["memory/read_graph"] }, "b")(rt);
        pids.add(childrenRunning(MEMORY)[0]!);
        throw new Error("the program failed");
      },
      { cwd },
    );
    expect(error.message).toBe("the program failed");
    expect(pids.size).toBe(1);
    expect(childrenRunning(MEMORY)).toEqual([]);
    // The second agent sees only read_graph, over the same server and its graph.
    expect(offered(server.requests.at(-2)!).filter((name) => name.startsWith("mcp__"))).toEqual([
      "mcp__memory__read_graph",
    ]);
    expect(readFileSync(join(cwd, "memory.jsonl"), "utf8")).toContain('"name":"n"');
  });

  it("a cancelled run stops its servers", async () => {
    const cwd = project();
    const controller = new AbortController();
    const server = await serve((request) => {
      if (turnOf(request) === 0) return reply.toolUse([{ name: "mcp__everything__echo", input: { message: "x" } }]);
      controller.abort(new Error("cancelled"));
      return reply.hang();
    });
    await failingRun(server, session({ mcp: ["everything/echo"] }), { cwd, signal: controller.signal });
    expect(childrenRunning(EVERYTHING)).toEqual([]);
  });

  it("reaches a server over streamable HTTP", async () => {
    const http = await startHttpEverything();
    stops.push(http.stop);
    const cwd = temporaryFolder("prosec-mcp-");
    writeMcpJson(cwd, { remote: { type: "http", url: http.url } });
    const server = await serve(calling([{ name: "mcp__remote__get-sum", input: { a: 20, b: 22 } }]));
    const { result } = await runAgainst(server, session({ mcp: ["remote/get-sum"] }), { cwd });
    expect(result).toBe("done");
    expect(results(server)[0]![2]).toContain("42");
  });
});

describe("an MCP call cut off by a crash, on resume", () => {
  it("runs again when the tool is readOnlyHint or idempotentHint; any other gets 'interrupted, effect unknown'", async () => {
    const script = calling([
      {
        name: "mcp__memory__create_entities",
        input: { entities: [{ name: "kept", entityType: "t", observations: [] }] },
      },
      { name: "mcp__memory__read_graph", input: {} },
      { name: "mcp__memory__delete_relations", input: { relations: [] } },
    ]);
    const permissions = { mcp: ["memory/*"] };
    const reference = await serve(script);
    const referenceCwd = project();
    await runAgainst(reference, session(permissions), { cwd: referenceCwd });

    const cwd = project();
    const runDir = join(cwd, ".prose", "runs", "run");
    const runId = "20260101-000000-000044";
    await runAgainst(await serve(script), session(permissions), { cwd, runDir, runId });
    // As a crash inside the turn's calls leaves it: every call started, none finished, no session record.
    const path = join(runDir, "journal.jsonl");
    const kept = readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line !== "" && !line.includes('"tool-finished"') && !line.includes('"kind":"session"'));
    writeFileSync(path, `${kept.join("\n")}\n`);

    const server = await serve(script);
    const { result } = await runAgainst(server, session(permissions), { cwd, runDir, runId, resume: true });
    expect(result).toBe("done");
    expect(server.requests.map(turnOf)).toEqual([1]);
    const [create, read, remove] = results(server) as [Result, Result, Result];
    expect(create[1]).toBe(true);
    expect(create[2]).toMatch(/^The run was interrupted while this mcp__memory__create_entities call was running/);
    // read_graph ran again and saw the entity the interrupted call had made: once.
    expect(read).toEqual(results(reference)[1]);
    expect(remove[1]).toBe(false);
    expect(readFileSync(join(cwd, "memory.jsonl"), "utf8").match(/"name":"kept"/g)).toHaveLength(1);
  });
});
