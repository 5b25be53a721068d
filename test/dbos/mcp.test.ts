/**
 * MCP servers on DBOS (DIALECT.md: "once per worker on DBOS, living as long as the worker"): a kill -9
 * of the worker while two runs' MCP calls are in flight, then another worker: the readOnlyHint tool is
 * called again, the tool without hints is not (the model is told its effect is unknown), and the
 * read's output is an uninterrupted run's. The second worker's server serves its runs one after the
 * other from one process, which outlives each run and stops when the worker does (SIGTERM). The MCP
 * server is the hostile fixture's slow tools (each call noted in a log, answered after a delay).
 */
import { existsSync, readFileSync, watch } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  folder,
  killed,
  result,
  startWorker,
  stopChildren,
  stopped,
  submit,
  waitFor,
} from "../support/dbos.js";
import { reply, turnOf, type FakeRequest } from "../support/fake-anthropic.js";
import { writeMcpJson } from "../support/mcp-servers.js";
import { freshDatabase } from "../support/postgres.js";

afterEach(stopChildren);

const HOSTILE = join(import.meta.dirname, "../fixtures/mcp/hostile-server.mjs");

const PROGRAM = `input topic: "The tool to call"
agent a:
  permissions:
    mcp: ["hostile/slow_read", "hostile/slow_write", "hostile/count"]

output out = session: a
  prompt: "Call {topic}"
`;

/** Calls the tool the task names, then answers with what the tool said. */
function respond(request: FakeRequest) {
  const messages = request.body?.messages ?? [];
  const task = JSON.stringify(messages[0]?.content);
  if (turnOf(request) === 0) {
    const tool = /Call (slow_read|slow_write|count)/.exec(task)?.[1] ?? "none";
    return reply.toolUse([{ name: `mcp__hostile__${tool}`, input: {} }]);
  }
  const last = messages.at(-1)?.content;
  const results = typeof last === "string" || last === undefined ? [] : last;
  return reply.text(`answered: ${results.map((block) => JSON.stringify(block["content"])).join("; ")}`);
}

/** Resolves once `file` holds `lines` lines. */
function logged(file: string, lines: number): Promise<void> {
  const enough = (): boolean => existsSync(file) && readFileSync(file, "utf8").trim().split("\n").length >= lines;
  return new Promise((resolve) => {
    if (enough()) return resolve();
    const watcher = watch(join(file, ".."), () => {
      if (!enough()) return;
      watcher.close();
      resolve();
    });
  });
}

/** Whether the process `pid` is a live hostile server. */
function serverAlive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("hostile-server.mjs");
  } catch {
    return false;
  }
}

describe("MCP servers on DBOS", () => {
  it(
    "a kill -9 during MCP calls: another worker calls the read-only tool again, not the other; its server lives as long as the worker",
    { timeout: 180_000 },
    async () => {
      const server = await fakeModel({ respond });
      const database = await freshDatabase("mcp");
      const cwd = folder(PROGRAM);
      const calls = join(cwd, "calls.log");
      writeMcpJson(cwd, {
        hostile: { command: process.execPath, args: [HOSTILE, "--log", calls, "--delay", "2000"] },
      });
      const env = environment(database, server);

      const first = await startWorker("w1", cwd, env);
      await Promise.all([submit(cwd, env, "slow_read", "run-read"), submit(cwd, env, "slow_write", "run-write")]);
      // Both calls are in flight (the server noted them and answers in 2 s): the worker dies.
      await logged(calls, 2);
      await killed(first);
      expect(readFileSync(calls, "utf8").trim().split("\n").sort()).toEqual(["slow_read", "slow_write"]);

      const second = await startWorker("w2", cwd, env, { adoptAfterSeconds: 1 });
      const [read, write] = (await Promise.all([result(cwd, env, "run-read"), result(cwd, env, "run-write")])) as {
        out: string;
      }[];
      // The read-only tool was called again; the other was not, and the model was told so.
      expect(readFileSync(calls, "utf8").trim().split("\n").sort()).toEqual(["slow_read", "slow_read", "slow_write"]);
      expect(write!.out).toContain("The run was interrupted while this mcp__hostile__slow_write call was running");
      await submit(cwd, env, "slow_read", "run-read-again");
      expect(read).toEqual(await result(cwd, env, "run-read-again"));
      expect(read!.out).toBe('answered: "slow_read done"');

      // One server process for the worker: it serves run after run and outlives each.
      await submit(cwd, env, "count", "run-count-1");
      const one = ((await result(cwd, env, "run-count-1")) as { out: string }).out;
      const pid = Number(/of process (\d+)/.exec(one)?.[1]);
      expect(serverAlive(pid)).toBe(true);
      await submit(cwd, env, "count", "run-count-2");
      const two = ((await result(cwd, env, "run-count-2")) as { out: string }).out;
      expect(two).toMatch(new RegExp(`call \\d+ of process ${pid}"$`));
      expect(second.log().match(/mcp server hostile: hostile server up/g)).toHaveLength(1);

      // It stops with the worker.
      expect(await stopped(second)).toBe(EXIT.ok);
      await waitFor(() => !serverAlive(pid), "the worker's MCP server to stop", 10_000);
    },
  );
});
