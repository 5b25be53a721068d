/**
 * Mid-program inputs off a terminal, through the real CLI (bin/prosec, stdin not a terminal): a run
 * that reaches one unanswered waits for input (exit 4, a line saying what it waits for and how to
 * answer), keeps its state, and goes on after `--resume ID --input name=value` or `prosec answer`;
 * answers given ahead answer first occurrences; `prosec cancel` ends a waiting or a running run.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
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
        questions: [
          {
            name: "again",
            prompt: "What should change?",
            line: 6,
            column: 3,
            program: "draft.prose",
            key: "/input@6:3#1",
            answer: "again",
          },
        ],
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

  it(
    "a called program's input waits at the callee's file and step key; a shared name is answered by program name or key, a bare one only when unique",
    { timeout: 60_000 },
    async () => {
      const cwd = project(`use "./imp/gate.prose" as gate

session "Start"
parallel:
  a = gate(topic: "tides")
  b = gate(topic: "moons")
  c = do:
    input confirm: "Your own confirmation?"
    session "Caller {confirm}"
output r = session "{a.result} / {b.result} / {c}"
  context: []
`);
      mkdirSync(join(cwd, "imp"));
      writeFileSync(
        join(cwd, "imp", "gate.prose"),
        `input topic: "Topic"
session "Prepare {topic}"
input confirm: "Type YES to go on"
output result = session "Go {topic} {confirm}"
  context: []
`,
      );
      const server = await serve();
      const waiting = await prosec(cwd, server, "run", "draft.prose", "--json");
      expect(waiting.status, waiting.stderr).toBe(EXIT.waitingForInput);
      const runId = onlyRun(cwd);
      const lines = waiting.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; questions?: Array<Record<string, unknown>> });
      // The runtime's event and the command's last line both name each input's program and step key.
      const event = lines.find((line) => line.type === "waiting" && !("runId" in line))!;
      const last = lines.at(-1)!;
      expect(last.type).toBe("waiting");
      const gateKeys = last.questions!.filter((question) => question["program"] === "imp/gate.prose");
      expect(gateKeys.map((question) => question["key"])).toEqual([
        expect.stringMatching(/use:gate@5:7#0\/input@3:1#0$/),
        expect.stringMatching(/use:gate@6:7#0\/input@3:1#0$/),
      ]);
      expect(last.questions).toEqual([
        {
          name: "confirm",
          prompt: "Type YES to go on",
          line: 3,
          column: 1,
          program: "imp/gate.prose",
          key: gateKeys[0]!["key"],
          answer: gateKeys[0]!["key"],
        },
        {
          name: "confirm",
          prompt: "Type YES to go on",
          line: 3,
          column: 1,
          program: "imp/gate.prose",
          key: gateKeys[1]!["key"],
          answer: gateKeys[1]!["key"],
        },
        {
          name: "confirm",
          prompt: "Your own confirmation?",
          line: 8,
          column: 5,
          program: "draft.prose",
          key: expect.stringMatching(/input@8:5#0$/),
          answer: "draft.confirm",
        },
      ]);
      expect(event.questions).toEqual(last.questions);
      const [first, second] = gateKeys.map((question) => question["key"] as string);
      expect(waiting.stderr).toContain(
        `Waiting for input "confirm" (Type YES to go on) at imp/gate.prose:3:1. Answer with: prosec answer ${runId} '${first}'=...`,
      );
      expect(waiting.stderr).toContain(
        `Waiting for input "confirm" (Your own confirmation?) at draft.prose:8:5. Answer with: prosec answer ${runId} draft.confirm=...`,
      );

      // A bare name three inputs share, and a program name two calls share, answer nothing: the message lists each one's own name.
      const bare = await prosec(cwd, server, "answer", runId, "confirm=yes");
      expect(bare.status).toBe(EXIT.usage);
      expect(bare.stderr).toContain(
        `"confirm" names 3 inputs the run waits for; name the one you answer: ${first} (imp/gate.prose:3:1), ${second} (imp/gate.prose:3:1), draft.confirm (draft.prose:8:5)`,
      );
      const program = await prosec(cwd, server, "answer", runId, "gate.confirm=yes");
      expect(program.status).toBe(EXIT.usage);
      expect(program.stderr).toContain(`"gate.confirm" names 2 inputs the run waits for`);
      const unknown = await prosec(cwd, server, "answer", runId, "other.confirm=yes");
      expect(unknown.status).toBe(EXIT.usage);
      expect(unknown.stderr).toContain(
        `run ${runId} is not waiting for "other.confirm"; it waits for "${first}", "${second}", "draft.confirm"`,
      );
      expect(JSON.parse(readFileSync(join(cwd, ".prose", "runs", runId, "waiting.json"), "utf8")).answers).toEqual({});

      const answered = await prosec(cwd, server, "answer", runId, `${first}=YES-1`, "draft.confirm=mine");
      expect(answered.status, answered.stderr).toBe(EXIT.ok);
      // Resumed with the third answer given on the command line by key: each call gets its own answer.
      const resumed = await serve();
      const done = await prosec(cwd, resumed, "run", "draft.prose", "--resume", runId, "--input", `${second}=YES-2`);
      expect(done.status, done.stderr).toBe(EXIT.ok);
      expect(prompts(resumed).sort()).toEqual([
        "Caller mine",
        "Go moons YES-2",
        "Go tides YES-1",
        expect.stringMatching(/^\[[0-9a-f]+\] re: Go tides YES-1 \/ \[[0-9a-f]+\] re: Go moons YES-2 \/ /),
      ]);
    },
  );

  it("a bare name answers a called program's input when it is the only one waiting", { timeout: 60_000 }, async () => {
    const cwd = project(`use "./imp/gate.prose" as gate

let g = gate(topic: "tides")
output r = g.result
`);
    mkdirSync(join(cwd, "imp"));
    writeFileSync(
      join(cwd, "imp", "gate.prose"),
      `input topic: "Topic"
session "Prepare {topic}"
input confirm: "Type YES to go on"
output result = session "Go {topic} {confirm}"
  context: []
`,
    );
    const server = await serve();
    const waiting = await prosec(cwd, server, "run", "draft.prose");
    expect(waiting.status, waiting.stderr).toBe(EXIT.waitingForInput);
    const runId = onlyRun(cwd);
    expect(waiting.stderr).toContain(
      `Waiting for input "confirm" (Type YES to go on) at imp/gate.prose:3:1. Answer with: prosec answer ${runId} confirm=..., then prosec run draft.prose --resume ${runId}; or: prosec run draft.prose --resume ${runId} --input confirm=...`,
    );
    // --input on a resume takes the called program's input by its program's name too.
    const resumed = await serve();
    const done = await prosec(cwd, resumed, "run", "draft.prose", "--resume", runId, "--input", "gate.confirm=YES-9");
    expect(done.status, done.stderr).toBe(EXIT.ok);
    expect(prompts(resumed)).toEqual(["Go tides YES-9"]);
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
