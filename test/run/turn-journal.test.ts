/**
 * A session's turns as journal records: each reply that asked for tools, each tool call started and
 * finished. A run stopped inside a session resumes it from the journal: the rebuilt conversation is
 * byte-identical to what the model saw, only the next turn is sent, finished tool calls never run
 * again, and an unfinished call runs again only when running it twice does no harm.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../runtime/index.js";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  turnOf,
} from "../support/fake-anthropic.js";
import { at, runAgainst, TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Three tool turns (each writes a file, appends to a log by command and edits a file), then an answer. */
function toolScript(request: FakeRequest): FakeReply {
  const turn = turnOf(request);
  if (turn >= 3) return reply.text(`finished after ${turn} turns`);
  return {
    kind: "message",
    stopReason: "tool_use",
    content: [
      { type: "text", text: `turn ${turn}` },
      {
        type: "tool_use",
        id: `toolu_w${turn}`,
        name: "write_file",
        input: { path: `out-${turn}.txt`, content: `${turn}` },
      },
      { type: "tool_use", id: `toolu_r${turn}`, name: "run_command", input: { command: `echo t${turn} >> calls.log` } },
      { type: "tool_use", id: `toolu_e${turn}`, name: "edit_file", input: { path: "notes.txt", old: "x", new: "y" } },
    ],
  };
}

async function serve(respond: (request: FakeRequest) => FakeReply): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond });
  servers.push(server);
  return server;
}

const session = (rt: Runtime): Promise<string> =>
  rt.session({ at: at(1), binding: "work", prompt: "Do the work", permissions: { bash: "allow" } });

interface Line {
  readonly key: string;
  readonly kind?: string;
  readonly turn?: { readonly type: string; readonly id?: string };
}

function journal(runDir: string): Line[] {
  return readFileSync(join(runDir, "journal.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Line);
}

/** Runs the session until the request for turn `stopAt` arrives, then stops the run as a crash would leave it. */
async function interrupted(cwd: string, runDir: string, stopAt: number): Promise<FakeServer> {
  const controller = new AbortController();
  const server = await serve((request) => {
    if (turnOf(request) < stopAt) return toolScript(request);
    controller.abort(new Error("stopped"));
    return reply.hang();
  });
  await expect(
    runAgainst(server, session, { cwd, runDir, runId: "20260101-000000-000001", signal: controller.signal }),
  ).rejects.toThrow();
  return server;
}

describe("a session's turns in the journal", () => {
  it("records each tool-asking reply and each tool call started and finished, before the session's own record", async () => {
    const cwd = temporaryFolder();
    const runDir = join(cwd, ".prose", "runs", "run");
    const server = await serve(toolScript);
    const { result } = await runAgainst(server, session, { cwd, runDir });
    expect(result).toBe("finished after 3 turns");
    const lines = journal(runDir);
    expect(lines.map((line) => line.turn?.type ?? line.kind)).toEqual([
      ...Array.from({ length: 3 }, () => [
        "response",
        ...["tool-started", "tool-finished", "tool-started", "tool-finished", "tool-started", "tool-finished"],
      ]).flat(),
      "session",
    ]);
    expect(new Set(lines.map((line) => line.key)).size).toBe(1);
    expect(readFileSync(join(cwd, "calls.log"), "utf8")).toBe("t0\nt1\nt2\n");
  });

  it("resumes inside the session: only the next turn is sent, its prefix byte-identical, no finished tool runs again", async () => {
    const reference = await serve(toolScript);
    const referenceCwd = temporaryFolder();
    await runAgainst(reference, session, { cwd: referenceCwd });

    const cwd = temporaryFolder();
    const runDir = join(cwd, ".prose", "runs", "run");
    const first = await interrupted(cwd, runDir, 2);
    expect(first.requests).toHaveLength(3);
    expect(readFileSync(join(cwd, "calls.log"), "utf8")).toBe("t0\nt1\n");

    const server = await serve(toolScript);
    const { result } = await runAgainst(server, session, { cwd, runDir, resume: true });
    expect(result).toBe("finished after 3 turns");
    expect(server.requests.map(turnOf)).toEqual([2, 3]);
    // The resumed requests are the uninterrupted run's, byte for byte (so the prompt cache still hits).
    const sent = (folder: string) => (request: FakeRequest) => JSON.stringify(request.body).replaceAll(folder, "<cwd>");
    expect(server.requests.map(sent(cwd))).toEqual(reference.requests.slice(2).map(sent(referenceCwd)));
    expect(readFileSync(join(cwd, "calls.log"), "utf8")).toBe("t0\nt1\nt2\n");
  });

  it("a call started but not finished: write_file runs again; edit_file and run_command are reported as interrupted", async () => {
    const cwd = temporaryFolder();
    const runDir = join(cwd, ".prose", "runs", "run");
    await interrupted(cwd, runDir, 1);
    // The crash came while the first turn's calls ran: all three had started, none had finished.
    const path = join(runDir, "journal.jsonl");
    const lines = readFileSync(path, "utf8").split("\n").slice(0, -1);
    const type = (line: string): string | undefined => (JSON.parse(line) as Line).turn?.type;
    expect(lines.map(type)).toEqual([
      "response",
      ...Array.from({ length: 3 }, () => ["tool-started", "tool-finished"]).flat(),
    ]);
    writeFileSync(path, `${lines.filter((line) => type(line) !== "tool-finished").join("\n")}\n`);

    const asked: FakeRequest[] = [];
    const server = await serve((request) => {
      asked.push(request);
      return toolScript(request);
    });
    const { result } = await runAgainst(server, session, { cwd, runDir, resume: true });
    expect(result).toBe("finished after 3 turns");
    expect(server.requests.map(turnOf)).toEqual([1, 2, 3]);
    const results = (asked[0]!.body!.messages.at(-1)!.content as Array<Record<string, unknown>>).map((block) => [
      block["tool_use_id"],
      block["is_error"] === true,
      String(block["content"]).slice(0, 40),
    ]);
    expect(results).toEqual([
      ["toolu_w0", false, expect.any(String) as string],
      ["toolu_r0", true, "The run was interrupted while this run_c"],
      ["toolu_e0", true, "The run was interrupted while this edit_"],
    ]);
    expect(readFileSync(join(cwd, "out-0.txt"), "utf8")).toBe("0");
    // The interrupted command (which had in fact run) was not run again.
    expect(readFileSync(join(cwd, "calls.log"), "utf8")).toBe("t0\nt1\nt2\n");
  });

  it("a persistent agent's memory saved before the crash is recorded although its update_memory call does not run again", async () => {
    const cwd = temporaryFolder();
    const runDir = join(cwd, ".prose", "runs", "run");
    const runId = "20260101-000000-000002";
    const keeper = (rt: Runtime): Promise<string> =>
      rt.session({ at: at(1), agent: { name: "keeper", persist: true }, prompt: "Keep notes" });
    const remembering = (request: FakeRequest): FakeReply =>
      turnOf(request) === 0
        ? reply.toolUse([{ name: "update_memory", input: { memory: "The sky is green.", summary: "Looked up" } }])
        : turnOf(request) === 1
          ? reply.toolUse([{ name: "list_files", input: { path: "." } }])
          : reply.text("noted");
    const controller = new AbortController();
    const first = await serve((request) => {
      if (turnOf(request) < 2) return remembering(request);
      controller.abort(new Error("stopped"));
      return reply.hang();
    });
    await expect(runAgainst(first, keeper, { cwd, runDir, runId, signal: controller.signal })).rejects.toThrow();

    const server = await serve(remembering);
    const { result } = await runAgainst(server, keeper, { cwd, runDir, runId, resume: true });
    expect(result).toBe("noted");
    expect(server.requests.map(turnOf)).toEqual([2]);
    const folder = join(runDir, "agents", "keeper");
    expect(readFileSync(join(folder, "memory.md"), "utf8")).toBe("# Agent Memory: keeper\n\nThe sky is green.\n");
    expect(readFileSync(join(folder, "keeper-001.md"), "utf8")).toContain("## Summary\n\nLooked up\n");
  });

  it("a `retry:` attempt starts the conversation over", async () => {
    const cwd = temporaryFolder();
    const runDir = join(cwd, ".prose", "runs", "run");
    let failed = false;
    const server = await serve((request) => {
      if (turnOf(request) === 2 && !failed) {
        failed = true;
        return reply.error(400, { message: "scripted" });
      }
      return toolScript(request);
    });
    const { result } = await runAgainst(
      server,
      (rt) => rt.session({ at: at(1), prompt: "Do the work", permissions: { bash: "allow" }, retry: 1 }),
      { cwd, runDir },
    );
    expect(result).toBe("finished after 3 turns");
    expect(server.requests.map(turnOf)).toEqual([0, 1, 2, 0, 1, 2, 3]);
    expect(journal(runDir).filter((line) => line.turn?.type === "restart")).toHaveLength(1);
  });
});

describe("a turn in which the model repeats a secret", () => {
  it("is journaled and continued from redacted: no secret in the journal, the tool's input or the next request", async () => {
    const cwd = temporaryFolder();
    const runDir = join(cwd, ".prose", "runs", "run");
    const server = await serve((request) =>
      turnOf(request) === 0
        ? {
            kind: "message",
            stopReason: "tool_use",
            content: [
              { type: "text", text: `The key is ${TEST_API_KEY}.` },
              {
                type: "tool_use",
                id: "toolu_leak",
                name: "write_file",
                input: { path: "leak.txt", content: `key=${TEST_API_KEY}` },
              },
            ],
          }
        : reply.text("done"),
    );
    const { result } = await runAgainst(server, session, { cwd, runDir });
    expect(result).toBe("done");
    expect(readFileSync(join(runDir, "journal.jsonl"), "utf8")).not.toContain(TEST_API_KEY);
    expect(readFileSync(join(cwd, "leak.txt"), "utf8")).toBe("key=[redacted]");
    const second = JSON.stringify(server.requests[1]!.body);
    expect(second).not.toContain(TEST_API_KEY);
    expect(second).toContain("The key is [redacted].");
  });
});
