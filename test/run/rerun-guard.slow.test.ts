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
 * in the tool session, a command appending "one" to log.txt, then "two" (then each of `words`), then
 * the final answer (or, with `hang`, no answer: the run is killed there). A session started over runs
 * every command again.
 */
async function serve(hang = false, words: readonly string[] = ["one", "two"]): Promise<FakeServer> {
  const server = await startFakeAnthropic({
    respond: (request): FakeReply => {
      const messages = request.body?.messages ?? [];
      if (!JSON.stringify(messages[0] ?? "").includes("Do the work")) return reply.text("the plan");
      const word = words[(messages.length - 1) / 2];
      if (word !== undefined)
        return reply.toolUse([{ name: "run_command", input: { command: `echo ${word} >> log.txt` } }]);
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

  it("edits of an earlier prompt and of the session's are refused before the first request: nothing is paid again", async () => {
    const { cwd, runId } = await killedUnderWay();
    const edited = PROGRAM.replace("Plan the work", "Plan the work well").replace("Do the work", "Do the work now");
    writeFileSync(join(cwd, "work.prose"), edited);
    const server = await serve();
    const refused = await start(cwd, server, ["--resume", runId]).exit;
    expect(refused.status, refused.stderr).toBe(EXIT.runStateUnusable);
    expect(refused.stderr).toContain("since its statement changed after these tool calls finished: run_command");
    // Refused as the session was reached, the edited plan would have been asked again first.
    expect(server.requests).toHaveLength(0);
    expect(logLines(cwd)).toEqual(["one", "two"]);
  });

  it("an edit of the session's agent, with an earlier prompt edited too, is refused before the first request", async () => {
    const { cwd, runId } = await killedUnderWay();
    const edited = PROGRAM.replace("Plan the work", "Plan the work well").replace(
      "agent worker:\n",
      'agent worker:\n  prompt: "You are careful."\n',
    );
    writeFileSync(join(cwd, "work.prose"), edited);
    const server = await serve();
    const refused = await start(cwd, server, ["--resume", runId]).exit;
    expect(refused.status, refused.stderr).toBe(EXIT.runStateUnusable);
    expect(refused.stderr).toContain(
      "since the definition of its agent worker changed after these tool calls finished",
    );
    expect(server.requests).toHaveLength(0);
    expect(logLines(cwd)).toEqual(["one", "two"]);
  });

  it("another model for the agent of a session under way is refused before the first request", async () => {
    const { cwd, runId } = await killedUnderWay();
    const server = await serve();
    const refused = await start(cwd, server, ["--resume", runId], { PROSEC_MODEL_SONNET: "claude-another-model" }).exit;
    expect(refused.status, refused.stderr).toBe(EXIT.runStateUnusable);
    expect(refused.stderr).toMatch(
      /since its model changed \(\S+ → claude-another-model\) after these tool calls finished/,
    );
    expect(server.requests).toHaveLength(0);
    expect(logLines(cwd)).toEqual(["one", "two"]);
  });

  it("a complete run of 6 commands resumed with another model, then without: no request, no command, unless --rerun", async () => {
    const words = ["one", "two", "three", "four", "five", "six"];
    const cwd = temporaryFolder("prosec-rerun-");
    writeFileSync(join(cwd, "work.prose"), PROGRAM);
    const firstServer = await serve(false, words);
    const first = await start(cwd, firstServer, []).exit;
    expect(first.status, first.stderr).toBe(EXIT.ok);
    expect(firstServer.requests).toHaveLength(8);
    expect(logLines(cwd)).toEqual(words);
    const runId = onlyRun(cwd);
    const model = { PROSEC_MODEL_SONNET: "claude-another-model" };

    // With the variable: refused before any request, listing the six commands.
    const withModel = await serve(false, words);
    const refused = await start(cwd, withModel, ["--resume", runId], model).exit;
    expect(refused.status, refused.stderr).toBe(EXIT.runStateUnusable);
    expect(refused.stderr).toContain("since its model changed");
    expect(refused.stderr).toContain(words.map((word) => `run_command \`echo ${word} >> log.txt\``).join(", "));
    expect(withModel.requests).toHaveLength(0);
    expect(logLines(cwd)).toEqual(words);

    // Without it: the complete run replays, nothing is asked or run again, nothing is reported re-run.
    const without = await serve(false, words);
    const replayed = await start(cwd, without, ["--resume", runId, "--json"]).exit;
    expect(replayed.status, replayed.stderr).toBe(EXIT.ok);
    expect(without.requests).toHaveLength(0);
    expect(logLines(cwd)).toEqual(words);
    expect(replayed.stdout).not.toContain('"type":"resumed"');

    // With the variable and --rerun: both steps run again, reported as a model change (not as new).
    const rerunServer = await serve(false, words);
    const rerun = await start(cwd, rerunServer, ["--resume", runId, "--rerun", "--json"], model).exit;
    expect(rerun.status, rerun.stderr).toBe(EXIT.ok);
    expect(rerunServer.requests).toHaveLength(8);
    expect(logLines(cwd)).toEqual([...words, ...words]);
    const resumed = JSON.parse(rerun.stdout.split("\n").find((line) => line.includes('"type":"resumed"'))!) as {
      summary: string;
      rerun: number;
      added: number;
      rerunReasons: Record<string, number>;
    };
    expect(resumed.summary).toMatch(/^reused 0 steps; re-running 2 from line \d+ \(model changed\)$/);
    expect(resumed).toMatchObject({ rerun: 2, added: 0, rerunReasons: { "model changed": 2 } });
    expect(rerunServer.requests.every((request) => request.body?.model === "claude-another-model")).toBe(true);

    // The next resume without the variable would run the six commands again: refused, nothing sent.
    const back = await serve(false, words);
    const again = await start(cwd, back, ["--resume", runId]).exit;
    expect(again.status, again.stderr).toBe(EXIT.runStateUnusable);
    expect(back.requests).toHaveLength(0);
    expect(logLines(cwd)).toEqual([...words, ...words]);
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
