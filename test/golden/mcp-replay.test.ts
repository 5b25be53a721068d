/**
 * A golden test of a program whose agent calls an MCP server: recorded against the real
 * server-memory, replayed by `prosec test` without starting any server (the replay answers the
 * session from the journal; the server's command is replaced by one that would leave a mark).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadProgram } from "../../src/run/load-program.js";
import { testGolden } from "../../src/golden/run-golden.js";
import { reply, startFakeAnthropic, type FakeServer, turnOf } from "../support/fake-anthropic.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { EVERYTHING, MEMORY, writeMcpJson } from "../support/mcp-servers.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const PROGRAM = `agent keeper:
  permissions:
    mcp: ["memory/*"]

let graph = session: keeper
  prompt: "Record the tides, then read the graph"

output graph = graph
`;

let server: FakeServer | undefined;
afterAll(async () => {
  await server?.close();
});

describe("golden replay of an MCP call", () => {
  it("replays the recorded result without starting the server", async () => {
    requireBuiltRuntime();
    server = await startFakeAnthropic({
      respond: (request) => {
        if (turnOf(request) === 0)
          return reply.toolUse([
            {
              name: "mcp__memory__create_entities",
              input: { entities: [{ name: "tides", entityType: "fact", observations: ["twice a day"] }] },
            },
          ]);
        if (turnOf(request) === 1) return reply.toolUse([{ name: "mcp__memory__read_graph", input: {} }]);
        const results = JSON.stringify(request.body?.messages.at(-1)?.content);
        return reply.text(results.includes("twice a day") ? "graph has tides" : "graph is empty");
      },
    });
    const project = temporaryFolder("prosec-mcp-golden-");
    writeMcpJson(project, {
      memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(project, "graph.jsonl") } },
    });
    writeFileSync(join(project, "keeper.prose"), PROGRAM);
    const loaded = await loadProgram("keeper.prose", { cwd: project });
    const module = loaded.module!;
    const runDir = join(project, ".prose/runs/20260101-120000-abc044");
    const outputs = await module.run(
      {},
      {
        runDir,
        runId: "20260101-120000-abc044",
        apiKey: TEST_API_KEY,
        baseURL: server.url,
        maxRetries: 0,
        cwd: project,
      },
    );
    expect(outputs).toEqual({ graph: "graph has tides" });
    expect(readFileSync(join(runDir, "journal.jsonl"), "utf8")).toContain("mcp__memory__read_graph");

    // The server would leave a mark if it were started.
    const mark = join(project, "started");
    writeMcpJson(project, {
      memory: { command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(mark)}, "")`] },
    });
    const result = await testGolden(runDir, { cwd: project, strict: false });
    expect(result.failures).toEqual([]);
    expect(result.passed).toBe(true);
    expect(existsSync(mark)).toBe(false);
  });

  it("replays a recorded image result (an image block) without starting the server", async () => {
    requireBuiltRuntime();
    const images = await startFakeAnthropic({
      respond: (request) => {
        if (turnOf(request) === 0) return reply.toolUse([{ name: "mcp__everything__get-tiny-image", input: {} }]);
        const results = JSON.stringify(request.body?.messages.at(-1)?.content);
        return reply.text(results.includes('"type":"image"') ? "saw an image" : "saw no image");
      },
    });
    try {
      const project = temporaryFolder("prosec-mcp-golden-image-");
      writeMcpJson(project, { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } });
      writeFileSync(
        join(project, "viewer.prose"),
        'agent viewer:\n  permissions:\n    mcp: ["everything/get-tiny-image"]\n\nlet seen = session: viewer\n  prompt: "Look"\n\noutput seen = seen\n',
      );
      const loaded = await loadProgram("viewer.prose", { cwd: project });
      const runDir = join(project, ".prose/runs/20260101-120000-img044");
      const outputs = await loaded.module!.run(
        {},
        {
          runDir,
          runId: "20260101-120000-img044",
          apiKey: TEST_API_KEY,
          baseURL: images.url,
          maxRetries: 0,
          cwd: project,
        },
      );
      expect(outputs).toEqual({ seen: "saw an image" });
      expect(readFileSync(join(runDir, "journal.jsonl"), "utf8")).toContain('"media_type":"image/png"');
      const mark = join(project, "started");
      writeMcpJson(project, {
        everything: {
          command: process.execPath,
          args: ["-e", `require("fs").writeFileSync(${JSON.stringify(mark)}, "")`],
        },
      });
      const result = await testGolden(runDir, { cwd: project, strict: false });
      expect(result.failures).toEqual([]);
      expect(result.passed).toBe(true);
      expect(existsSync(mark)).toBe(false);
    } finally {
      await images.close();
    }
  });
});
