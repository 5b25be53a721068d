/**
 * A persistent agent's memory on DBOS: what a session adds to it is checkpointed with the session's
 * step and written to the agent's folder after it (steps/memory.ts). A worker killed while the run
 * waits for an input leaves the memory written; the worker that takes the run over replays the
 * session from its checkpoint and records nothing twice, and writes what a crash between the
 * checkpoint and the folder left out.
 */
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  folder,
  killed,
  prosec,
  startWorker,
  stopChildren,
  submit,
  waitFor,
} from "../support/dbos.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { freshDatabase } from "../support/postgres.js";

afterEach(stopChildren);

const PROGRAM = `input topic: "What to note"
agent keeper:
  persist: project

let first = session: keeper
  prompt: "First note on {topic}"
input go: "Go on?"
let second = session: keeper
  prompt: "Second note ({go})"
output notes = second
`;

describe("a persistent agent's memory on DBOS", () => {
  it.each([
    ["with its memory written", false],
    ["with its memory lost after the checkpoint", true],
  ])(
    "a worker that takes a run over replays a finished session %s: one segment per session",
    { timeout: 180_000 },
    async (_, lost) => {
      const server = await fakeModel({ respond: deterministicModel() });
      const database = await freshDatabase(lost ? "memory_lost" : "memory_kept");
      const cwd = folder(PROGRAM);
      const env = environment(database, server);
      const memoryDir = join(cwd, ".prose", "agents", "keeper");

      const first = await startWorker("w1", cwd, env);
      await submit(cwd, env, "tides", "run-memory");
      await waitFor(
        async () =>
          JSON.parse((await prosec(["status", "run-memory", "--json"], cwd, env)).stdout).status === "WAITING",
        "the run waiting for go",
      );
      await killed(first);
      const memory = readFileSync(join(memoryDir, "memory.md"), "utf8");
      expect(readdirSync(memoryDir).sort()).toEqual(["keeper-001.md", "memory.md"]);
      // A crash after the session's checkpoint, before its memory reached the folder.
      if (lost) rmSync(memoryDir, { recursive: true });
      expect((await prosec(["answer", "run-memory", "go=yes"], cwd, env)).code).toBe(EXIT.ok);

      await startWorker("w2", cwd, env, { adoptAfterSeconds: 1 });
      const outcome = await prosec(["result", "run-memory", "--timeout", "120"], cwd, env);
      expect(outcome.code, outcome.stderr).toBe(EXIT.ok);
      expect(readdirSync(memoryDir).sort()).toEqual(["keeper-001.md", "keeper-002.md", "memory.md"]);
      const after = readFileSync(join(memoryDir, "memory.md"), "utf8");
      expect(after.startsWith(memory)).toBe(true);
      expect(after.match(/## Segment 001 Summary/g)).toHaveLength(1);
      expect(after).toContain("## Segment 002 Summary");
      expect(readFileSync(join(memoryDir, "keeper-001.md"), "utf8")).toContain('prompt: "First note on tides"');
      expect(server.requests).toHaveLength(2);
    },
  );
});
