/**
 * A kill -9 of `prosec run` while a session's MCP call is in flight, then `prosec run --resume`: a
 * tool marked readOnlyHint is called again, one without hints is not (the model is told its effect is
 * unknown), and the run's output is what an uninterrupted run gives. The MCP server is the hostile
 * fixture's slow tools (it notes each call in a log, then answers after a delay).
 */
import { existsSync, readFileSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec } from "../support/cli.js";
import { reply, startFakeAnthropic, type FakeServer, turnOf } from "../support/fake-anthropic.js";
import { writeMcpJson } from "../support/mcp-servers.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const HOSTILE = join(import.meta.dirname, "../fixtures/mcp/hostile-server.mjs");

const servers: FakeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** Resolves once `file` exists (the server logged the call). */
function created(folder: string, file: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(folder, () => {
      if (existsSync(join(folder, file))) {
        watcher.close();
        resolve();
      }
    });
    if (existsSync(join(folder, file))) {
      watcher.close();
      resolve();
    }
  });
}

async function killedInFlight(tool: "slow_read" | "slow_write"): Promise<{ calls: string[]; output: string }> {
  const server = await startFakeAnthropic({
    respond: (request) =>
      turnOf(request) === 0
        ? reply.toolUse([{ name: `mcp__hostile__${tool}`, input: {} }])
        : reply.text(`answered: ${JSON.stringify(request.body?.messages.at(-1)?.content).slice(0, 400)}`),
  });
  servers.push(server);
  const cwd = temporaryFolder("prosec-mcp-kill-");
  const log = join(cwd, "calls.log");
  writeMcpJson(cwd, { hostile: { command: process.execPath, args: [HOSTILE, "--log", log, "--delay", "3000"] } });
  writeFileSync(
    join(cwd, "p.prose"),
    `agent a:\n  permissions:\n    mcp: ["hostile/${tool}"]\n\noutput out = session: a\n  prompt: "Go"\n`,
  );
  const env = { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url, DBOS_SYSTEM_DATABASE_URL: "" };
  const first = startProsec(["run", "p.prose", "--json"], cwd, env);
  await created(cwd, "calls.log");
  first.child.kill("SIGKILL");
  const killed = await first.exit;
  expect(killed.status).toBeNull();
  const runId = /"runId":"([^"]+)"/.exec(killed.stdout)![1]!;
  const resumed = await startProsec(["run", "p.prose", "--resume", runId], cwd, env).exit;
  expect(resumed.status, resumed.stderr).toBe(EXIT.ok);
  return { calls: readFileSync(log, "utf8").trim().split("\n"), output: resumed.stdout };
}

describe("kill -9 during an MCP call, then resume", () => {
  it("a readOnlyHint tool is called again, and the output is an uninterrupted run's", async () => {
    const { calls, output } = await killedInFlight("slow_read");
    expect(calls).toEqual(["slow_read", "slow_read"]);
    expect(output).toContain("slow_read done");
  });

  it("a tool without hints is not called again: the model is told its effect is unknown", async () => {
    const { calls, output } = await killedInFlight("slow_write");
    expect(calls).toEqual(["slow_write"]);
    expect(output).toContain("The run was interrupted while this mcp__hostile__slow_write call was running");
  });
});
