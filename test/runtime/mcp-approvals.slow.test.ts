/**
 * `prompt:` entries of `permissions: mcp:` (`mcpPrompt`): their tools are offered like `mcp:`'s, and
 * each call goes to a person through the approval path every `prompt` uses: `onPermission` in an
 * app, `onApproval` (the terminal's question), or, with neither, a durable wait that `prosec approve`
 * / `prosec deny` answers. A tool a plain glob allows is never asked about; one a `prompt:` glob also
 * matches is. Against server-memory, whose `create_entities` writes its graph file: the approved call
 * runs once.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WaitingForInput } from "../../runtime/errors.js";
import type { Permissions, PermissionRequest, Runtime } from "../../runtime/index.js";
import { readWaiting } from "../../runtime/durable/run-control.js";
import { decideFileRun } from "../../src/runs/folder-control.js";
import { reply, type FakeReply, type FakeRequest, turnOf } from "../support/fake-anthropic.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { childrenRunning, MEMORY, stdioServers, writeMcpJson } from "../support/mcp-servers.js";
import { at, failingRun, runAgainst, temporaryFolder } from "./helpers.js";

const serve = fakeServersPerTest();

const ENTITY = { entities: [{ name: "approved-entity", entityType: "t", observations: [] }] };

/** Reads the graph, then writes to it; then answers with what its last request's results said. */
const script = (request: FakeRequest): FakeReply =>
  turnOf(request) === 0
    ? reply.toolUse([
        { name: "mcp__memory__read_graph", input: {} },
        { name: "mcp__memory__create_entities", input: ENTITY },
      ])
    : reply.text(`result: ${JSON.stringify(request.body?.messages.at(-1)?.content)}`);

const session =
  (permissions: Permissions) =>
  (rt: Runtime): Promise<string> =>
    rt.session({ at: at(3), binding: "x", prompt: "Remember", agent: { name: "keeper", permissions } });

const PERMISSIONS: Permissions = { mcp: ["memory/read_graph"], mcpPrompt: ["memory/create_entities"] };
const RUN_ID = "20260101-000000-00mcp4";

function project(): { cwd: string; runDir: string; graph: string } {
  const cwd = temporaryFolder("prosec-mcp-approval-");
  const graph = join(cwd, "memory.jsonl");
  writeMcpJson(cwd, stdioServers(graph));
  return { cwd, runDir: join(cwd, ".prose", "runs", RUN_ID), graph };
}

const entitiesIn = (graph: string): number =>
  existsSync(graph) ? (readFileSync(graph, "utf8").match(/"approved-entity"/g) ?? []).length : 0;

async function waitingRun(permissions: Permissions = PERMISSIONS): Promise<ReturnType<typeof project>> {
  const where = project();
  const { error } = await failingRun(await serve(script), session(permissions), {
    cwd: where.cwd,
    runDir: where.runDir,
    runId: RUN_ID,
  });
  expect(error).toBeInstanceOf(WaitingForInput);
  expect(error.name).toBe("WaitingForApproval");
  expect(entitiesIn(where.graph)).toBe(0);
  expect(childrenRunning(MEMORY)).toEqual([]);
  return where;
}

describe("prompt: entries of permissions: mcp:", () => {
  it("off a terminal the run waits with the call pending; approve, and the resumed run makes the call once", async () => {
    const { cwd, runDir, graph } = await waitingRun();
    const [question] = readWaiting(runDir)!.questions;
    expect(question!.prompt).toBe(`Agent keeper asks to use mcp__memory__create_entities: ${JSON.stringify(ENTITY)}`);
    decideFileRun(runDir, RUN_ID, [], false, "yes");

    const second = await serve(script);
    const { result } = await runAgainst(second, session(PERMISSIONS), { cwd, runDir, runId: RUN_ID, resume: true });
    expect(second.requests.map(turnOf)).toEqual([1]);
    expect(result).not.toContain("is_error");
    expect(entitiesIn(graph)).toBe(1);
    const journal = readFileSync(join(runDir, "journal.jsonl"), "utf8");
    // read_graph (allowed outright) started and finished once, before the question; create_entities
    // was asked, left pending, then ran once.
    expect(journal.match(/"type":"(tool-started|approval-pending|tool-finished)"/g)).toEqual([
      '"type":"tool-started"',
      '"type":"tool-finished"',
      '"type":"tool-started"',
      '"type":"approval-pending"',
      '"type":"tool-started"',
      '"type":"tool-finished"',
    ]);
  });

  it("deny: the model sees a tool error with the reason, and the server is never called", async () => {
    const { cwd, runDir, graph } = await waitingRun();
    decideFileRun(runDir, RUN_ID, [], false, "no: not that entity");
    const { result } = await runAgainst(await serve(script), session(PERMISSIONS), {
      cwd,
      runDir,
      runId: RUN_ID,
      resume: true,
    });
    expect(result).toContain("A person refused mcp__memory__create_entities");
    expect(result).toContain("(not that entity)");
    expect(entitiesIn(graph)).toBe(0);
  });

  it("onPermission (an app) or onApproval (the terminal) decides in-process, asked only about the prompt: tool", async () => {
    for (const option of ["onPermission", "onApproval"] as const) {
      for (const verdict of [true, false]) {
        const { cwd, graph } = project();
        const asked: PermissionRequest[] = [];
        const { result } = await runAgainst(await serve(script), session(PERMISSIONS), {
          cwd,
          [option]: (request: PermissionRequest) => {
            asked.push(request);
            return verdict;
          },
        });
        expect(asked).toEqual([
          { tool: "mcp__memory__create_entities", detail: JSON.stringify(ENTITY), agent: "keeper" },
        ]);
        expect(entitiesIn(graph)).toBe(verdict ? 1 : 0);
        expect(result.includes("Permission to use mcp__memory__create_entities was not granted")).toBe(!verdict);
      }
    }
  });

  // A hostile model pads an input so that what matters comes after what a cut would show.
  it("a person is shown the whole input, however long", async () => {
    const { cwd } = project();
    const padded = {
      entities: [{ name: "approved-entity", entityType: "t", observations: ["x".repeat(5_000), "THE TAIL"] }],
    };
    const asked: string[] = [];
    await runAgainst(
      await serve((request) =>
        turnOf(request) === 0
          ? reply.toolUse([{ name: "mcp__memory__create_entities", input: padded }])
          : reply.text("ok"),
      ),
      session(PERMISSIONS),
      {
        cwd,
        onPermission: (request: PermissionRequest) => {
          asked.push(request.detail);
          return false;
        },
      },
    );
    expect(asked).toEqual([JSON.stringify(padded)]);
  });

  it("a tool both a plain and a prompt: glob match asks; mcp: prompt asks for every tool of every server", async () => {
    for (const permissions of [
      { mcp: ["memory/*"], mcpPrompt: ["memory/create_*"] },
      { mcpPrompt: ["*"] },
    ] satisfies Permissions[]) {
      const { cwd } = project();
      const asked: string[] = [];
      await runAgainst(await serve(script), session(permissions), {
        cwd,
        onPermission: (request) => {
          asked.push(request.tool);
          return true;
        },
      });
      expect(asked).toEqual(
        permissions.mcp === undefined
          ? ["mcp__memory__read_graph", "mcp__memory__create_entities"]
          : ["mcp__memory__create_entities"],
      );
    }
  });

  it("mcp: prompt with a .mcp.json that declares no server: said once, no MCP tool, the session runs", async () => {
    const cwd = temporaryFolder("prosec-mcp-approval-");
    writeMcpJson(cwd, {});
    const server = await serve(() => reply.text("nothing to call"));
    const { result, events } = await runAgainst(server, session({ mcpPrompt: ["*"] }), { cwd });
    expect(result).toBe("nothing to call");
    const tools = (server.requests[0]!.body as { tools?: Array<{ name: string }> }).tools ?? [];
    expect(tools.filter((tool) => tool.name.startsWith("mcp__"))).toEqual([]);
    expect(
      events.filter((event) => event.type === "notice" && event.message.includes('"*/*" matches no MCP server')),
    ).toHaveLength(1);
  });
});
