/**
 * `prosec run` as a user runs it: a child process against the fake Messages API. The main test kills
 * the process with SIGKILL in the middle of a program with a `parallel:` block and a judged loop, at
 * several points, resumes it, and checks that the outputs equal an uninterrupted run's and that no
 * step finished before the kill was asked of the model again.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { deterministicModel, identity, identityIn } from "../support/deterministic-model.js";
import { lastUserText as lastPrompt, type FakeServer } from "../support/fake-anthropic.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const serve = fakeServersPerTest();

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));

const PROGRAM = `input topic: "Topic"

parallel:
  history = session "Research {topic}: history"
  markets = session "Research {topic}: markets"
  risks = session "Research {topic}: risks"

let draft = session "Outline a report on {topic}"
  context: { history, markets, risks }

loop until **the draft is final** (max: 4) as round:
  draft = session "Revise the draft, round {round}"
    context: draft

let polished = []
parallel for part in ["opening", "body", "ending"]:
  let text = session "Polish the {part}"
    context: draft
  polished = polished + [text]

output report = session "Assemble the report"
  context: { draft, polished }
`;

const answer = deterministicModel((question) => question.includes("round 1"));

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function prosec(
  cwd: string,
  server: FakeServer,
  args: readonly string[],
): { child: ChildProcess; exit: Promise<Exit> } {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...process.env, ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<Exit>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, exit };
}

function project(): string {
  const cwd = temporaryFolder("prosec-cli-run-");
  writeFileSync(join(cwd, "report.prose"), PROGRAM);
  return cwd;
}

function outputsOf(exit: Exit): unknown {
  const last = exit.stdout.trim().split("\n").pop() ?? "";
  const line = JSON.parse(last) as { type: string; outputs?: unknown };
  expect(line.type).toBe("outputs");
  return line.outputs;
}

function onlyRun(cwd: string): string {
  const runs = readdirSync(join(cwd, ".prose", "runs"));
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
  return runs[0]!;
}

/** The requests whose answers the run's journal holds. */
function journaled(cwd: string, runId: string): string[] {
  const path = join(cwd, ".prose", "runs", runId, "journal.jsonl");
  if (!existsSync(path)) return [];
  const complete = readFileSync(path, "utf8").split("\n").slice(0, -1);
  return complete.map((line) => {
    const record = JSON.parse(line) as { value: unknown; reason?: string };
    return identityIn(record.value) ?? identityIn(record.reason) ?? "unidentified";
  });
}

async function uninterrupted(): Promise<{ outputs: unknown; requests: number }> {
  const server = await serve(answer);
  const exit = await prosec(project(), server, ["run", "report.prose", "--input", "topic=tides", "--json"]).exit;
  expect(exit.code).toBe(0);
  return { outputs: outputsOf(exit), requests: server.requests.length };
}

describe("prosec run", () => {
  it(
    "survives SIGKILL at any point: the resumed run ends with the same outputs and pays for no finished step twice",
    { timeout: 120_000 },
    async () => {
      const reference = await uninterrupted();
      expect(reference.requests).toBeGreaterThanOrEqual(12);

      for (const killAt of [1, 3, 5, 8, 11]) {
        const cwd = project();
        const first = await serve((request) => {
          if (request.index !== killAt) return answer(request);
          started.child.kill("SIGKILL");
          return { kind: "hang" };
        });
        const started = prosec(cwd, first, ["run", "report.prose", "--input", "topic=tides", "--json"]);
        const killed = await started.exit;
        expect(killed.signal, `kill at request ${killAt}`).toBe("SIGKILL");

        const runId = onlyRun(cwd);
        const finished = journaled(cwd, runId);
        expect(finished).not.toContain("unidentified");
        if (killAt >= 3)
          expect(finished.length, `steps journaled before the kill at request ${killAt}`).toBeGreaterThan(0);

        const second = await serve(answer);
        const resumed = await prosec(cwd, second, ["run", "report.prose", "--resume", runId, "--json"]).exit;
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(outputsOf(resumed)).toEqual(reference.outputs);
        const askedAgain = second.requests.map(identity).filter((id) => finished.includes(id));
        expect(askedAgain, `kill at request ${killAt}`).toEqual([]);
        expect(second.requests.length + finished.length).toBe(reference.requests);
        expect(readFileSync(join(cwd, ".prose", "runs", runId, "state.md"), "utf8")).toContain("status: complete");
      }
    },
  );

  it(
    "Ctrl-C stops cleanly (exit 130), says how to resume, and the resumed run finishes",
    { timeout: 60_000 },
    async () => {
      const reference = await uninterrupted();
      const cwd = project();
      const first = await serve((request) => {
        if (request.index !== 6) return answer(request);
        started.child.kill("SIGINT");
        return { kind: "hang" };
      });
      const started = prosec(cwd, first, ["run", "report.prose", "--input", "topic=tides"]);
      const stopped = await started.exit;
      const runId = onlyRun(cwd);
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).toContain("The run was interrupted (Ctrl-C).");
      expect(stopped.stderr).toContain(`Resume with: prosec run report.prose --resume ${runId}`);
      expect(readFileSync(join(cwd, ".prose", "runs", runId, "state.md"), "utf8")).toContain("status: interrupted");

      const second = await serve(answer);
      const resumed = await prosec(cwd, second, ["run", "report.prose", "--resume", runId, "--json"]).exit;
      expect(resumed.code).toBe(0);
      expect(outputsOf(resumed)).toEqual(reference.outputs);
    },
  );

  it("SIGTERM stops it as Ctrl-C does, and says it was terminated", { timeout: 60_000 }, async () => {
    const cwd = project();
    const server = await serve((request) => {
      if (request.index !== 2) return answer(request);
      started.child.kill("SIGTERM");
      return { kind: "hang" };
    });
    const started = prosec(cwd, server, ["run", "report.prose", "--input", "topic=tides"]);
    const stopped = await started.exit;
    const runId = onlyRun(cwd);
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain("The run was terminated (SIGTERM).");
    expect(stopped.stderr).not.toContain("Ctrl-C");
    expect(stopped.stderr).toContain(`Resume with: prosec run report.prose --resume ${runId}`);
  });

  it(
    "narrates in plain text off a terminal, prints the outputs on stdout, and --json gives one event per line",
    { timeout: 60_000 },
    async () => {
      const server = await serve(answer);
      const cwd = project();
      const plain = await prosec(cwd, server, ["run", "report.prose", "-i", "topic=tides"]).exit;
      expect(plain.code).toBe(0);
      expect(plain.stdout).toMatch(/^## report\n\n\[[0-9a-f]{12}\] re: Assemble the report\n\n$/);
      // The run id comes first, one line, for --resume and prosec test --save.
      expect(plain.stderr.split("\n")[0]).toBe(`run ${onlyRun(cwd)} · report`);
      expect(plain.stderr).toMatch(/^✓ 4:13 Research tides: history · \d+ tokens$/m);
      expect(plain.stderr).toMatch(/^\? 11:12 the draft is final → (yes|no) \(\[[0-9a-f]{12}\] scripted\)$/m);
      expect(plain.stderr).toMatch(
        /^done in [\d.]+ s · 10 sessions · [\d,]+ input \+ [\d,]+ output tokens · ≈ \$[\d.]+$/m,
      );
      expect(plain.stderr).not.toContain("\x1b[");

      const json = await prosec(project(), server, ["run", "report.prose", "-i", "topic=tides", "--json"]).exit;
      const events = json.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string });
      expect(events[0]!.type).toBe("run-start");
      expect(events.map((event) => event.type)).toEqual(
        expect.arrayContaining([
          "session-start",
          "session-end",
          "judgment",
          "parallel-start",
          "loop-iteration",
          "run-end",
          "outputs",
        ]),
      );
    },
  );

  it(
    "refuses a changed program on --resume --strict, and says what is missing or wrong in the arguments",
    { timeout: 60_000 },
    async () => {
      const server = await serve(answer);
      const cwd = project();
      expect((await prosec(cwd, server, ["run", "report.prose", "-i", "topic=tides"]).exit).code).toBe(0);
      const runId = onlyRun(cwd);
      const requests = server.requests.length;

      writeFileSync(join(cwd, "report.prose"), PROGRAM.replace("Assemble the report", "Assemble the final report"));
      // --strict refuses it; without --strict it resumes, reusing what the change left as it was (fork.slow.test.ts).
      const changed = await prosec(cwd, server, ["run", "report.prose", "--resume", runId, "--strict"]).exit;
      expect(changed.code).toBe(1);
      expect(changed.stderr).toContain(`The program changed since run ${runId} started`);
      expect(changed.stderr).not.toContain("Resume with");
      expect(server.requests).toHaveLength(requests);

      const missing = await prosec(cwd, server, ["run", "report.prose"]).exit;
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("missing input: --input topic=... (Topic)");
      const unknown = await prosec(cwd, server, ["run", "report.prose", "-i", "subject=x"]).exit;
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('report.prose has no input "subject" (its inputs: topic)');
      const noRun = await prosec(cwd, server, ["run", "report.prose", "--resume", "20990101-000000-abcdef"]).exit;
      expect(noRun.code).toBe(2);
      expect(noRun.stderr).toContain("there is no such run");
    },
  );

  it("on a terminal, asks for a missing input and shows live progress", { timeout: 60_000 }, async () => {
    const server = await serve(answer);
    const cwd = temporaryFolder("prosec-cli-run-");
    writeFileSync(
      join(cwd, "ask.prose"),
      'input topic: "What to research"\noutput report = session "Report on {topic}"\n',
    );
    // `script` runs prosec on a pseudo-terminal, as a person's shell would.
    const child = spawn(
      "script",
      ["-qefc", `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} run ask.prose`, "/dev/null"],
      {
        cwd,
        env: {
          ...process.env,
          ANTHROPIC_API_KEY: TEST_API_KEY,
          ANTHROPIC_BASE_URL: server.url,
          NO_COLOR: "1",
          TERM: "dumb",
        },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let screen = "";
    child.stdout.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
      if (screen.includes("topic (What to research): ") && !screen.includes("whales")) child.stdin.write("whales\r");
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdin.end();
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/run \d{8}-\d{6}-[0-9a-f]{6} · ask/);
    expect(screen).toMatch(/✓ 2:17 Report on whales · \d+ tokens/);
    expect(screen).toMatch(/## report\r?\n\r?\n\[[0-9a-f]{12}\] re: Report on whales/);
    expect(lastPrompt(server.requests[0]!)).toContain("Report on whales");
  });

  it(
    "runs a program that uses local programs, compiled in memory, with their state under imports/",
    { timeout: 30_000 },
    async () => {
      const server = await serve(answer);
      const cwd = temporaryFolder("prosec-cli-run-");
      writeFileSync(join(cwd, "summary.prose"), 'input topic: "Topic"\noutput summary = session "Summarise {topic}"\n');
      writeFileSync(
        join(cwd, "main.prose"),
        'use "./summary" as summarise\n\nlet first = summarise(topic: "moons")\noutput digest = "Digest: " + first.summary\n',
      );
      const exit = await prosec(cwd, server, ["run", "main.prose", "--json"]).exit;
      expect(exit.code, exit.stderr).toBe(0);
      const sessionEnds = exit.stdout
        .split("\n")
        .filter((line) => line.includes('"session-end"'))
        .map((line) => JSON.parse(line) as { source?: string; at: unknown });
      expect(sessionEnds).toEqual([expect.objectContaining({ source: "summary.prose", at: { line: 2, column: 18 } })]);
      expect(outputsOf(exit)).toEqual({
        digest: expect.stringMatching(/^Digest: \[[0-9a-f]{12}\] re: Summarise moons$/) as unknown,
      });
      const runId = onlyRun(cwd);
      expect(
        readFileSync(join(cwd, ".prose", "runs", runId, "imports", "summarise", "bindings", "summary.md"), "utf8"),
      ).toContain("re: Summarise moons");
      expect(existsSync(join(cwd, "main.prose.ts"))).toBe(false);
    },
  );

  it("a program with errors is reported with its code frame and does not run", { timeout: 30_000 }, async () => {
    const server = await serve(answer);
    const cwd = temporaryFolder("prosec-cli-run-");
    writeFileSync(join(cwd, "broken.prose"), 'session: writer\n  prompt: "x"\n');
    const exit = await prosec(cwd, server, ["run", "broken.prose"]).exit;
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain("broken.prose:1:10 error E007");
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(cwd, ".prose"))).toBe(false);
  });
});
