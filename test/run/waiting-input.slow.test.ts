/**
 * Mid-program inputs off a terminal, through the real CLI (bin/prosec, stdin not a terminal): a run
 * that reaches one unanswered waits for input (exit 4, a line saying what it waits for and how to
 * answer), keeps its state, and goes on after `--resume ID --input name=value` or `prosec answer`;
 * answers given ahead answer first occurrences; `prosec cancel` ends a waiting or a running run.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec, type CliResult, type StartedCli } from "../support/cli.js";
import { deterministicModel } from "../support/deterministic-model.js";
import {
  askedText,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

// The loop's judgment always says "not yet": it runs its two iterations, asking `again` in each.
const PROGRAM = `input topic: "Topic"

let draft = session "Draft about {topic}"
input approval: "Approve the draft?"
loop until **the draft is approved** (max: 2):
  input again: "What should change?"
  draft = session "Revise: {again}"
output result = session "Final ({approval})"
  context: draft
`;

const model = deterministicModel(() => false);

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(respond: (request: FakeRequest) => FakeReply = model): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond });
  servers.push(server);
  return server;
}

function start(cwd: string, server: FakeServer, args: readonly string[]): StartedCli {
  return startProsec(args, cwd, {
    ANTHROPIC_API_KEY: TEST_API_KEY,
    ANTHROPIC_BASE_URL: server.url,
    DBOS_SYSTEM_DATABASE_URL: "",
  });
}

function prosec(cwd: string, server: FakeServer, ...args: string[]): Promise<CliResult> {
  return start(cwd, server, args).exit;
}

function project(program = PROGRAM): string {
  const cwd = temporaryFolder("prosec-waiting-");
  writeFileSync(join(cwd, "draft.prose"), program);
  return cwd;
}

function onlyRun(cwd: string): string {
  const runs = readdirSync(join(cwd, ".prose", "runs"));
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

/** What each request asked: a session's first line, a judgment's condition (after its context). */
function prompts(server: FakeServer): string[] {
  return server.requests.map((request) => {
    // The task's block (after the trail's heading, when there is one), or the judgment's question.
    const lines = askedText(request)
      .split("\n")
      .filter((line) => line !== "" && line !== "## Your task");
    return lines.find((line) => line.startsWith("Condition: ")) ?? lines[0]!;
  });
}

describe("an input nobody can be asked for", () => {
  it(
    "waits (exit 4, state saved), then goes on with --resume --input, with prosec answer, and asks a looped input again",
    { timeout: 60_000 },
    async () => {
      const cwd = project();
      const first = await serve();
      const waiting = await prosec(cwd, first, "run", "draft.prose", "--input", "topic=tides");
      const runId = onlyRun(cwd);
      expect(waiting.status, waiting.stderr).toBe(EXIT.waitingForInput);
      expect(waiting.stderr).toContain(
        `Waiting for input "approval" (Approve the draft?) at draft.prose:4:1. Answer with: prosec answer ${runId} approval=...`,
      );
      expect(waiting.stderr).toContain(`prosec run draft.prose --resume ${runId} --input approval=...`);
      expect(prompts(first)).toEqual(["Draft about tides"]);
      const dir = join(cwd, ".prose", "runs", runId);
      expect(JSON.parse(readFileSync(join(dir, "waiting.json"), "utf8")).questions).toMatchObject([
        { name: "approval", prompt: "Approve the draft?", at: { line: 4 } },
      ]);
      expect(readFileSync(join(dir, "state.md"), "utf8")).toContain("status: waiting");

      // Answered on the command line: the run replays its draft and stops at the loop's input.
      const second = await serve();
      const resumed = await prosec(cwd, second, "run", "draft.prose", "--resume", runId, "--input", "approval=yes");
      expect(resumed.status, resumed.stderr).toBe(EXIT.waitingForInput);
      expect(resumed.stderr).toContain(`Waiting for input "again" (What should change?) at draft.prose:6:3.`);
      expect(prompts(second)).toEqual(["Condition: the draft is approved"]);

      // Answered with `prosec answer`: recorded in the folder, used by the next resume.
      const answered = await prosec(cwd, second, "answer", runId, "again=shorter");
      expect(answered.status, answered.stderr).toBe(EXIT.ok);
      expect(answered.stdout).toContain(
        `answered "again" for run ${runId}; continue it with: prosec run draft.prose --resume ${runId}`,
      );
      const wrongName = await prosec(cwd, second, "answer", runId, "approval=no");
      expect(wrongName.status).toBe(EXIT.usage);
      expect(wrongName.stderr).toContain(`run ${runId} is not waiting for "approval"; it waits for "again"`);

      // The second iteration asks `again` again: an answer answers one occurrence.
      const third = await serve();
      const again = await prosec(cwd, third, "run", "draft.prose", "--resume", runId);
      expect(again.status, again.stderr).toBe(EXIT.waitingForInput);
      expect(again.stderr).toContain(`Waiting for input "again"`);
      expect(prompts(third)).toEqual(["Revise: shorter", "Condition: the draft is approved"]);

      const fourth = await serve();
      const done = await prosec(
        cwd,
        fourth,
        "run",
        "draft.prose",
        "--resume",
        runId,
        "--input",
        "again=warmer",
        "--json",
      );
      expect(done.status, done.stderr).toBe(EXIT.ok);
      expect(prompts(fourth)).toEqual(["Revise: warmer", "Final (yes)"]);
      expect(existsSync(join(dir, "waiting.json"))).toBe(false);
    },
  );

  it(
    "uses answers given ahead for first occurrences, and prosec cancel ends the waiting run for good",
    { timeout: 30_000 },
    async () => {
      const cwd = project();
      const server = await serve();
      const waiting = await prosec(
        cwd,
        server,
        "run",
        "draft.prose",
        "--input",
        "topic=tides",
        "--input",
        "approval=ok",
        "--input",
        "again=first",
        "--json",
      );
      expect(waiting.status, waiting.stderr).toBe(EXIT.waitingForInput);
      const runId = onlyRun(cwd);
      expect(JSON.parse(waiting.stdout.trim().split("\n").pop()!)).toEqual({
        type: "waiting",
        runId,
        questions: [{ name: "again", prompt: "What should change?", line: 6, column: 3 }],
      });
      expect(prompts(server).filter((prompt) => prompt.startsWith("Revise"))).toEqual(["Revise: first"]);

      const cancelled = await prosec(cwd, server, "cancel", runId);
      expect(cancelled.status, cancelled.stderr).toBe(EXIT.ok);
      expect(cancelled.stdout).toContain(`run ${runId} cancelled`);
      const refused = await prosec(cwd, server, "run", "draft.prose", "--resume", runId, "--input", "again=second");
      expect(refused.status).not.toBe(EXIT.ok);
      expect(refused.stderr).toContain(`Run ${runId} was cancelled (prosec cancel)`);
      const late = await prosec(cwd, server, "answer", runId, "again=second");
      expect(late.status).toBe(EXIT.usage);
      expect(late.stderr).toContain("was cancelled");
    },
  );

  it("lets sibling parallel branches finish, and a catch: does not catch the wait", { timeout: 30_000 }, async () => {
    const cwd = project(`parallel:
  a = try:
    input pick: "Which one?"
  catch:
    session "never: the wait is not an error"
  b = session "Sibling work"
output result = session "Combine {a} and {b}"
`);
    const server = await serve();
    const waiting = await prosec(cwd, server, "run", "draft.prose");
    expect(waiting.status, waiting.stderr).toBe(EXIT.waitingForInput);
    expect(prompts(server)).toEqual(["Sibling work"]);
    const runId = onlyRun(cwd);
    const resumed = await serve();
    const done = await prosec(cwd, resumed, "run", "draft.prose", "--resume", runId, "--input", "pick=left");
    expect(done.status, done.stderr).toBe(EXIT.ok);
    expect(prompts(resumed)).toEqual([expect.stringMatching(/^Combine left and \[[0-9a-f]+\] re: Sibling work$/)]);
  });

  it("prosec cancel stops a running run through its .lock pid", { timeout: 30_000 }, async () => {
    const cwd = project(`session "Slow work"\n`);
    let release: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (release = resolve));
    const server = await serve(() => {
      release();
      return { kind: "hang" };
    });
    const running = start(cwd, server, ["run", "draft.prose"]);
    await reached;
    const cancelled = await prosec(cwd, server, "cancel", onlyRun(cwd));
    expect(cancelled.stdout).toMatch(/cancelled \(stopping process \d+\)/);
    const exit = await running.exit;
    expect(exit.status).toBe(EXIT.interrupted);
    expect(exit.stderr).toContain("The run was cancelled (prosec cancel).");
    expect(exit.stderr).not.toContain("Resume with");
  });
});
