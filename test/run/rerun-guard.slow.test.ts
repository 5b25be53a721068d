/**
 * "A finished tool call never runs again" across edits and setting changes (issue 41), through the
 * real CLI: a tool session killed under way is resumed after an edit elsewhere in the program (it goes
 * on by its structural key), after an edit of its own prompt (refused, exit 7, listing the finished
 * commands, unless --rerun), and a complete run is resumed with another model for its agent (refused
 * the same way; with --rerun it runs again and says a model or setting changed).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec, type CliResult } from "../support/cli.js";
import { reply, startFakeAnthropic, type FakeReply, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const PROGRAM = `agent worker:
  model: sonnet
  permissions:
    bash: allow

let plan = session "Plan the work"
output done = session: worker
  prompt: "Do the work"
  context: plan
`;

const servers: FakeServer[] = [];
const children: Array<{ kill(signal: NodeJS.Signals): boolean }> = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * A model that does the work as a real one would, turn by turn: the plan (the first session);
 * in the tool session, a command appending "one" to log.txt, then "two", then the final answer (or,
 * with `hang`, no answer: the run is killed there). A session started over runs both commands again.
 */
async function serve(hang = false): Promise<FakeServer> {
  const server = await startFakeAnthropic({
    respond: (request): FakeReply => {
      const messages = request.body?.messages ?? [];
      if (!JSON.stringify(messages[0] ?? "").includes("Do the work")) return reply.text("the plan");
      if (messages.length === 1)
        return reply.toolUse([{ name: "run_command", input: { command: "echo one >> log.txt" } }]);
      if (messages.length === 3)
        return reply.toolUse([{ name: "run_command", input: { command: "echo two >> log.txt" } }]);
      return hang ? reply.hang() : reply.text("all done");
    },
  });
  servers.push(server);
  return server;
}

function start(cwd: string, server: FakeServer, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const started = startProsec(["run", "work.prose", "--sandbox", "off", ...args], cwd, {
    ANTHROPIC_API_KEY: TEST_API_KEY,
    ANTHROPIC_BASE_URL: server.url,
    DBOS_SYSTEM_DATABASE_URL: "",
    ...env,
  });
  children.push(started.child);
  return started;
}

function logLines(cwd: string): string[] {
  const path = join(cwd, "log.txt");
  return existsSync(path) ? readFileSync(path, "utf8").trim().split("\n") : [];
}

function onlyRun(cwd: string): string {
  return readdirSync(join(cwd, ".prose", "runs"))[0]!;
}

/** A run killed while its tool session waits for its third turn: both commands have run. */
async function killedUnderWay(files: Readonly<Record<string, string>> = { "work.prose": PROGRAM }): Promise<{
  cwd: string;
  runId: string;
}> {
  const cwd = temporaryFolder("prosec-rerun-");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
  const server = await serve(true);
  const run = start(cwd, server, []);
  await server.waitForRequests(4);
  run.child.kill("SIGKILL");
  await run.exit;
  expect(logLines(cwd)).toEqual(["one", "two"]);
  return { cwd, runId: onlyRun(cwd) };
}

describe("a finished tool call never runs again", () => {
  it("a session under way goes on by its structural key after an edit elsewhere in the program", async () => {
    const { cwd, runId } = await killedUnderWay();
    writeFileSync(join(cwd, "work.prose"), `# A comment added at the top.\n\n${PROGRAM}`);
    const server = await serve();
    const resumed: CliResult = await start(cwd, server, ["--resume", runId]).exit;
    expect(resumed.status, resumed.stderr).toBe(EXIT.ok);
    expect(logLines(cwd)).toEqual(["one", "two"]);
    // Only the turn in flight is sent again: the plan is reused, the session's turns replayed.
    expect(server.requests).toHaveLength(1);
  });

  it("an edit of the session's own prompt is refused (exit 7) listing the finished commands; --rerun runs them again", async () => {
    const { cwd, runId } = await killedUnderWay();
    writeFileSync(join(cwd, "work.prose"), PROGRAM.replace("Do the work", "Do the work carefully"));
    const server = await serve();
    const refused = await start(cwd, server, ["--resume", runId]).exit;
    expect(refused.status, refused.stderr).toBe(EXIT.runStateUnusable);
    expect(refused.stderr).toContain(
      "these tool calls finished: run_command `echo one >> log.txt`, run_command `echo two >> log.txt`",
    );
    expect(refused.stderr).toContain("--rerun");
    expect(server.requests).toHaveLength(0);
    expect(logLines(cwd)).toEqual(["one", "two"]);

    // The plan is reused (unchanged); the session starts over.
    const rerun = await start(cwd, await serve(), ["--resume", runId, "--rerun"]).exit;
    expect(rerun.status, rerun.stderr).toBe(EXIT.ok);
    expect(logLines(cwd)).toEqual(["one", "two", "one", "two"]);
  });

  it("another model for the agent of a complete run is refused (exit 7); with --rerun the step runs again, reported as a model change", async () => {
    const cwd = temporaryFolder("prosec-rerun-");
    writeFileSync(join(cwd, "work.prose"), PROGRAM);
    const first = await start(cwd, await serve(), []).exit;
    expect(first.status, first.stderr).toBe(EXIT.ok);
    const runId = onlyRun(cwd);
    const model = { PROSEC_MODEL_SONNET: "claude-another-model" };
    const server = await serve();
    const refused = await start(cwd, server, ["--resume", runId], model).exit;
    expect(refused.status, refused.stderr).toBe(EXIT.runStateUnusable);
    expect(refused.stderr).toContain("run_command `echo one >> log.txt`, run_command `echo two >> log.txt`");
    // The plan (no tool calls) ran again with the new model before the session was refused; no command did.
    expect(server.requests).toHaveLength(1);
    expect(logLines(cwd)).toEqual(["one", "two"]);

    const rerun = await start(cwd, await serve(), ["--resume", runId, "--rerun", "--json"], model).exit;
    expect(logLines(cwd)).toEqual(["one", "two", "one", "two"]);
    expect(rerun.status, rerun.stderr).toBe(EXIT.ok);
    expect(rerun.stdout).toMatch(
      /"summary":"reused 0 steps; re-running 1 from line \d+ \(model or settings changed\)"/,
    );
  });
});

/** The tool session in a program work.prose calls: editing it (main unchanged) is an edit of the run. */
const USED = `agent worker:
  model: sonnet
  permissions:
    bash: allow

input plan: "The plan"

output done = session: worker
  prompt: "Do the work"
  context: plan
`;

const CALLER = `use "./tools.prose" as tools

let plan = session "Plan the work"
let result = tools(plan: plan)
output report = session "Report on it"
  context: result
`;

describe("a finished tool call never runs again in a used program", () => {
  it("a session under way in a used program goes on by its structural key after a comment is added to that program", async () => {
    const { cwd, runId } = await killedUnderWay({ "work.prose": CALLER, "tools.prose": USED });
    writeFileSync(join(cwd, "tools.prose"), `# A comment added at the top.\n\n${USED}`);
    const server = await serve();
    const resumed = await start(cwd, server, ["--resume", runId, "--json"]).exit;
    expect(resumed.status, resumed.stderr).toBe(EXIT.ok);
    expect(logLines(cwd)).toEqual(["one", "two"]);
    // The turn in flight and the report: the plan is reused, the session's turns replayed.
    expect(server.requests).toHaveLength(2);
    expect(resumed.stdout).toContain('"type":"resumed"');
  });

  it("an edit of the used program's prompt is refused (exit 7) listing the finished commands; --rerun runs them again", async () => {
    const { cwd, runId } = await killedUnderWay({ "work.prose": CALLER, "tools.prose": USED });
    writeFileSync(join(cwd, "tools.prose"), USED.replace("Do the work", "Do the work carefully"));
    const server = await serve();
    const refused = await start(cwd, server, ["--resume", runId]).exit;
    expect(refused.status, refused.stderr).toBe(EXIT.runStateUnusable);
    expect(refused.stderr).toContain(
      "these tool calls finished: run_command `echo one >> log.txt`, run_command `echo two >> log.txt`",
    );
    expect(server.requests).toHaveLength(0);
    expect(logLines(cwd)).toEqual(["one", "two"]);

    const rerun = await start(cwd, await serve(), ["--resume", runId, "--rerun"]).exit;
    expect(rerun.status, rerun.stderr).toBe(EXIT.ok);
    expect(logLines(cwd)).toEqual(["one", "two", "one", "two"]);
  });
});
