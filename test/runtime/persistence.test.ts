import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentDefinition } from "../../runtime/types.js";
import { lastUserText, reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst, temporaryFolder } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

const remember = (memory: string, summary: string) =>
  reply.toolUse([{ name: "update_memory", input: { memory, summary } }]);

describe("persistent agents", () => {
  it("persist: true writes memory and segments under the run directory; resume: loads it, the session updates it", async () => {
    const cwd = temporaryFolder();
    const captain: AgentDefinition = { name: "captain", persist: true, prompt: "You coordinate." };
    server = await startFakeAnthropic({
      script: [
        remember("## Current Understanding\n\nPlan approved: JWT auth.", "Reviewed the plan"),
        reply.text("Plan looks good."),
        remember("## Current Understanding\n\nStep 1 done; JWT in place.", "Reviewed step 1"),
        reply.text("Step 1 approved."),
      ],
    });
    const { result } = await runAgainst(
      server,
      async (rt) => [
        await rt.session({ at: at(1), agent: captain, prompt: "Review the plan" }),
        await rt.resume(captain, { at: at(2), prompt: "Review step 1" }),
      ],
      { cwd, runId: "20260115-143052-a7b3c9" },
    );
    expect(result).toEqual(["Plan looks good.", "Step 1 approved."]);
    const folder = join(cwd, ".prose/runs/20260115-143052-a7b3c9/agents/captain");
    expect(lastUserText(server.requests[0]!)).not.toContain("Agent Memory");
    expect(server.requests[0]!.body!.tools!.map((tool) => tool.name)).toContain("update_memory");
    expect(lastUserText(server.requests[2]!)).toContain(
      "# Agent Memory: captain\n\n## Current Understanding\n\nPlan approved: JWT auth.",
    );
    expect(readFileSync(join(folder, "memory.md"), "utf8")).toBe(
      "# Agent Memory: captain\n\n## Current Understanding\n\nStep 1 done; JWT in place.\n",
    );
    expect(readFileSync(join(folder, "captain-001.md"), "utf8")).toMatch(
      /^# Segment 001\n\ntimestamp: \d{4}-\d\d-\d\dT.*\nprompt: "Review the plan"\nrun: 20260115-143052-a7b3c9\nstep: "\/session@1:1#0"\n\n## Summary\n\nReviewed the plan\n$/,
    );
    expect(readFileSync(join(folder, "captain-002.md"), "utf8")).toContain("Reviewed step 1");
  });

  it("project memory survives runs; without update_memory the session's result is appended as a segment summary", async () => {
    const cwd = temporaryFolder();
    const advisor: AgentDefinition = { name: "advisor", persist: "project" };
    server = await startFakeAnthropic({ script: [reply.text("Use PostgreSQL."), reply.text("Still PostgreSQL.")] });
    await runAgainst(server, (rt) => rt.session({ at: at(1), agent: advisor, prompt: "Which database?" }), { cwd });
    await runAgainst(server, (rt) => rt.resume(advisor, { at: at(1), prompt: "Reconsider" }), { cwd });
    expect(lastUserText(server.requests[1]!)).toContain("## Segment 001 Summary\n\nUse PostgreSQL.");
    const memory = readFileSync(join(cwd, ".prose/agents/advisor/memory.md"), "utf8");
    expect(memory).toContain("# Agent Memory: advisor");
    // The second summary is appended to the memory as it was: the same text as rewriting it whole.
    expect(memory).toBe(
      "# Agent Memory: advisor\n\n## Segment 001 Summary\n\nUse PostgreSQL.\n\n## Segment 002 Summary\n\nStill PostgreSQL.\n",
    );
    expect(existsSync(join(cwd, ".prose/agents/advisor/advisor-002.md"))).toBe(true);
  });

  it("user memory lives under the (injectable) home directory; a path persists where it says", async () => {
    const cwd = temporaryFolder();
    const home = temporaryFolder("prosec-home-");
    server = await startFakeAnthropic({ script: [reply.text("u"), reply.text("p")] });
    await runAgainst(
      server,
      async (rt) => {
        await rt.session({ at: at(1), agent: { name: "inspector", persist: "user" }, prompt: "a" });
        await rt.session({
          at: at(2),
          agent: { name: "shared", persist: { path: ".prose/custom/shared-agent/" } },
          prompt: "b",
        });
      },
      { cwd, homeDir: home },
    );
    expect(existsSync(join(home, ".prose/agents/inspector/memory.md"))).toBe(true);
    expect(existsSync(join(cwd, ".prose/custom/shared-agent/memory.md"))).toBe(true);
    expect(existsSync(join(cwd, ".prose/custom/shared-agent/shared-001.md"))).toBe(true);
  });

  it("sessions of one agent in parallel branches write distinct segments", async () => {
    const cwd = temporaryFolder();
    const agent: AgentDefinition = { name: "worker", persist: "project" };
    server = await startFakeAnthropic({ respond: (request) => reply.text(`done ${lastUserText(request)}`) });
    await runAgainst(
      server,
      (rt) =>
        rt.parallel(
          at(1),
          {},
          [1, 2, 3, 4].map((n) => () => rt.session({ at: at(1 + n), agent, prompt: `task ${n}` })),
        ),
      { cwd },
    );
    const folder = join(cwd, ".prose/agents/worker");
    const segments = [1, 2, 3, 4].map((n) => readFileSync(join(folder, `worker-00${n}.md`), "utf8"));
    expect(segments.map((segment) => /prompt: "task (\d)"/.exec(segment)?.[1]).sort()).toEqual(["1", "2", "3", "4"]);
    expect(readFileSync(join(folder, "memory.md"), "utf8").match(/## Segment 00\d Summary/g)).toHaveLength(4);
  });

  it("resume: of an agent without persist: is an error", async () => {
    server = await startFakeAnthropic();
    const { error } = await failingRun(server, (rt) => rt.resume({ name: "plain" }, { at: at(4), prompt: "x" }));
    expect(error.message).toMatch(/4:1: resume: plain needs an agent with persist:/);
    expect(server.requests).toHaveLength(0);
  });
});
