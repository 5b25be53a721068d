/**
 * MCP servers and approvals through the built CLI, as a user runs them: `prosec check` knows the
 * `.mcp.json` beside the program; `prosec run` starts server-memory for the agent that may use it,
 * stops off a terminal waiting for approval of an explicit `bash: prompt` (exit 4), `prosec approve`
 * answers, and `prosec run --resume` runs the approved command once, with the MCP call made once.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec } from "../support/cli.js";
import { reply, startFakeAnthropic, type FakeServer, turnOf } from "../support/fake-anthropic.js";
import { childrenRunning, MEMORY, writeMcpJson } from "../support/mcp-servers.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const PROGRAM = `agent keeper:
  permissions:
    mcp: ["memory/*"]
    bash: prompt

output done = session: keeper
  prompt: "Record the tides, then make a folder"
`;

let server: FakeServer | undefined;
afterAll(async () => {
  await server?.close();
});

describe("prosec check, run, approve with MCP and approvals", () => {
  it("check knows .mcp.json; run waits for approval (exit 4); approve; resume runs the call once", async () => {
    server = await startFakeAnthropic({
      respond: (request) => {
        if (turnOf(request) === 0)
          return reply.toolUse([
            {
              name: "mcp__memory__create_entities",
              input: { entities: [{ name: "tides", entityType: "fact", observations: ["twice a day"] }] },
            },
          ]);
        if (turnOf(request) === 1) return reply.toolUse([{ name: "run_command", input: { command: "mkdir once" } }]);
        return reply.text(`finished: ${JSON.stringify(request.body?.messages.at(-1)?.content).slice(0, 200)}`);
      },
    });
    const cwd = temporaryFolder("prosec-cli-tools-");
    const graph = join(cwd, "graph.jsonl");
    writeMcpJson(cwd, { memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: graph } } });
    writeFileSync(join(cwd, "keeper.prose"), PROGRAM);
    writeFileSync(join(cwd, "typo.prose"), PROGRAM.replace("memory/*", "memroy/*"));
    const env = { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url, DBOS_SYSTEM_DATABASE_URL: "" };

    const check = await startProsec(["check", "typo.prose"], cwd).exit;
    expect(check.status).toBe(EXIT.failed);
    expect(check.stdout).toContain("P055");
    expect(check.stdout).toContain("did you mean `memory`?");

    const first = await startProsec(["run", "keeper.prose", "--sandbox", "off"], cwd, env).exit;
    expect(first.stderr).toMatch(/Waiting for approval: Agent keeper asks to use run_command: mkdir once/);
    expect(first.status).toBe(EXIT.waitingForInput);
    const runId = /prosec approve (\S+) /.exec(first.stderr)![1]!;
    expect(existsSync(join(cwd, "once"))).toBe(false);
    expect(childrenRunning(MEMORY)).toEqual([]);

    const shown = await startProsec(["runs", "show", runId], cwd).exit;
    expect(shown.stdout).toMatch(/waiting for approval: toolu_\S+: Agent keeper asks to use run_command: mkdir once/);

    const approve = await startProsec(["approve", runId], cwd).exit;
    expect(approve.status).toBe(EXIT.ok);
    expect(approve.stdout).toContain(`--resume ${runId}`);

    const resumed = await startProsec(["run", "keeper.prose", "--resume", runId, "--sandbox", "off"], cwd, env).exit;
    expect(resumed.status, resumed.stderr).toBe(EXIT.ok);
    expect(resumed.stdout).toContain("exit code 0");
    expect(existsSync(join(cwd, "once"))).toBe(true);
    // The MCP call of the first turn was made once: the graph holds one entity.
    expect(readFileSync(graph, "utf8").match(/"name":"tides"/g)).toHaveLength(1);
  });

  it("an mcp: prompt: entry waits for approval (exit 4) off a terminal; approve; the MCP call is made once", async () => {
    const asking = await startFakeAnthropic({
      respond: (request) =>
        turnOf(request) === 0
          ? reply.toolUse([
              {
                name: "mcp__memory__create_entities",
                input: { entities: [{ name: "ebb", entityType: "fact", observations: ["low tide"] }] },
              },
            ])
          : reply.text("recorded"),
    });
    try {
      const cwd = temporaryFolder("prosec-cli-mcp-prompt-");
      const graph = join(cwd, "graph.jsonl");
      writeMcpJson(cwd, { memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: graph } } });
      writeFileSync(
        join(cwd, "ebb.prose"),
        'agent keeper:\n  permissions:\n    mcp: ["memory/read_graph", prompt: "memory/create_*"]\n\noutput done = session: keeper\n  prompt: "Record the ebb"\n',
      );
      const env = { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: asking.url, DBOS_SYSTEM_DATABASE_URL: "" };
      const first = await startProsec(["run", "ebb.prose"], cwd, env).exit;
      expect(first.stderr).toMatch(
        /Waiting for approval: Agent keeper asks to use mcp__memory__create_entities: \{"entities"/,
      );
      expect(first.status).toBe(EXIT.waitingForInput);
      expect(existsSync(graph)).toBe(false);
      const runId = /prosec approve (\S+) /.exec(first.stderr)![1]!;
      expect((await startProsec(["approve", runId], cwd).exit).status).toBe(EXIT.ok);
      const resumed = await startProsec(["run", "ebb.prose", "--resume", runId], cwd, env).exit;
      expect(resumed.status, resumed.stderr).toBe(EXIT.ok);
      expect(resumed.stdout).toContain("recorded");
      expect(readFileSync(graph, "utf8").match(/"name":"ebb"/g)).toHaveLength(1);
      expect(childrenRunning(MEMORY)).toEqual([]);
    } finally {
      await asking.close();
    }
  });
});
