/**
 * Races run as the spec says (DIALECT.md, "Parallel: races, failures, cancellation"), against the
 * fake Messages API: what a losing branch loses when it is inside a loop, holds a nested `parallel`
 * or already finished a session; that its requests in flight are closed at the server; what the
 * journal holds; and that a run stopped during a race and resumed repays nothing that finished and
 * ends with the same outputs.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply, type FakeReply, type FakeRequest, type FakeServer } from "../support/fake-anthropic.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { lines } from "../support/lines.js";
import { waitFor } from "../support/wait.js";
import { firstUserText, loadProgram, TEST_API_KEY, temporaryFolder } from "./harness.js";

const serve = fakeServersPerTest();

let programs = 0;

interface Event {
  readonly type: string;
  readonly label?: string;
  readonly cancelled?: true;
}

/** A session's task: the first line of its prompt (after a block call's scope). */
const task = (request: FakeRequest): string =>
  firstUserText(request)
    .replace(/^Execution scope:\n(?: {2}.*\n)*\n/, "")
    .split("\n")[0]!;

/**
 * A model where `slow` never answers, `fast` answers once a `slow` request arrived (so the race is
 * decided while that one is in flight), and any other session answers `R(<task>)` at once.
 */
async function racingModel(): Promise<FakeServer> {
  let slowArrived: () => void = () => {};
  const slow = new Promise<void>((resolve) => (slowArrived = resolve));
  return serve(async (request): Promise<FakeReply> => {
    const text = task(request);
    if (text.includes("slow")) {
      slowArrived();
      return reply.hang();
    }
    if (text.includes("fast")) await slow;
    return reply.text(`R(${text})`);
  });
}

async function run(
  source: string,
  server: FakeServer,
  options: object = {},
): Promise<{ events: Event[]; outputs: Record<string, unknown> }> {
  const program = await loadProgram(source, `races-${++programs}.prose`);
  const events: Event[] = [];
  const outputs = await program.run(
    {},
    {
      apiKey: TEST_API_KEY,
      baseURL: server.url,
      cwd: temporaryFolder("prosec-e2e-races-"),
      maxRetries: 0,
      onEvent: (event: Event) => events.push(event),
      ...options,
    },
  );
  return { events, outputs };
}

const asked = (server: FakeServer): string[] => server.requests.map(task);

/** Waits until every request whose task includes `slow` was closed by the client. */
async function slowOnesClosed(server: FakeServer): Promise<void> {
  const slow = server.requests.filter((request) => task(request).includes("slow"));
  expect(slow.length).toBeGreaterThan(0);
  await waitFor(
    () => slow.every((request) => request.state === "aborted"),
    () => `the losing requests closed: ${JSON.stringify(slow.map((request) => [task(request), request.state]))}`,
  );
}

/** Every session that started ended, answered, cancelled or failed: none is left running in the narration. */
function everySessionEnded(events: readonly Event[]): void {
  const started = events.filter((event) => event.type === "session-start").map((event) => event.label);
  const ended = events
    .filter((event) => event.type === "session-end" || event.type === "step-caught")
    .map((event) => event.label);
  expect(ended.sort()).toEqual(started.sort());
}

describe("what the loser of a race loses", () => {
  it("a loop in a losing branch stops at its cancelled iteration: no later iteration, nothing after the loop", async () => {
    const server = await racingModel();
    const { events, outputs } = await run(
      lines(
        'parallel ("first"):',
        '  a = session "fast"',
        "  b = do:",
        "    repeat 3 as i:",
        '      session "slow {i}"',
        '    session "after the loop"',
        "output a = a",
        "output b = b",
      ),
      server,
    );
    expect(outputs).toEqual({ a: "R(fast)", b: null });
    expect(asked(server).sort()).toEqual(["fast", "slow 0"]);
    await slowOnesClosed(server);
    expect(events.find((event) => event.type === "session-end" && event.label?.includes("slow"))).toMatchObject({
      cancelled: true,
    });
    everySessionEnded(events);
  });

  it("a nested parallel in a losing branch: every inner request is closed and nothing after it runs", async () => {
    const server = await racingModel();
    const { events, outputs } = await run(
      lines(
        'parallel ("first"):',
        '  a = session "fast"',
        "  b = do:",
        "    parallel:",
        '      x = session "slow x"',
        '      y = session "slow y"',
        '    session "after the nested block"',
        "output a = a",
      ),
      server,
    );
    expect(outputs).toEqual({ a: "R(fast)" });
    // A request still on its way when the race is decided may never arrive: it is aborted, not sent.
    expect(asked(server)).toContain("slow x");
    expect(asked(server).filter((each) => !["fast", "slow x", "slow y"].includes(each))).toEqual([]);
    await slowOnesClosed(server);
    everySessionEnded(events);
  });

  it("a block called in a losing branch stops inside the block", async () => {
    const server = await racingModel();
    const { outputs } = await run(
      lines(
        "block research(topic):",
        '  session "slow research of {topic}"',
        '  session "summary of {topic}"',
        'parallel ("any"):',
        '  a = session "fast"',
        '  b = do research("tides")',
        "output a = a",
        "output b = b",
      ),
      server,
    );
    expect(outputs).toEqual({ a: "R(fast)", b: null });
    expect(asked(server).sort()).toEqual(["fast", "slow research of tides"]);
    await slowOnesClosed(server);
  });

  it("a session the loser finished before it lost stays in the journal; the loser's value is not the block's", async () => {
    const server = await racingModel();
    const runDir = join(temporaryFolder("prosec-e2e-races-run-"), "run");
    const { outputs } = await run(
      lines(
        'parallel ("first"):',
        '  a = session "fast"',
        "  b = do:",
        '    session "quick"',
        '    session "slow second"',
        "output a = a",
        "output b = b",
      ),
      server,
      { runDir },
    );
    expect(outputs).toEqual({ a: "R(fast)", b: null });
    await slowOnesClosed(server);
    expect(journalValues(runDir).sort()).toEqual(["R(fast)", "R(quick)"]);
  });

  it("a try around an any race that cannot reach its count catches once every branch finished", async () => {
    const server = await serve((request) =>
      task(request).startsWith("fail")
        ? reply.error(500, { shouldRetry: false })
        : reply.text(`R(${task(request)})`, { delayMs: 20 }),
    );
    const { events, outputs } = await run(
      lines(
        "let r = try:",
        '  parallel ("any", count: 2):',
        '    a = session "fail a"',
        '    b = session "fail b"',
        '    c = session "ok c"',
        "catch:",
        '  session "recover"',
        "output r = r",
      ),
      server,
    );
    expect(outputs).toEqual({ r: "R(recover)" });
    expect(asked(server).at(-1)).toBe("recover");
    everySessionEnded(events);
  });
});

/** The values the journal in `runDir` holds, in order. */
function journalValues(runDir: string): unknown[] {
  const path = join(runDir, "journal.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => (JSON.parse(line) as { value?: unknown }).value);
}

describe("a run stopped during a race and resumed", () => {
  const PROGRAM = lines(
    'parallel ("first"):',
    '  a = session "first branch"',
    "  b = do:",
    '    session "second branch, step 1"',
    '    session "second branch, step 2"',
    'output after = session "after the race"',
    "output a = a",
    "output b = b",
  );

  /** Runs PROGRAM until the model receives `stopAt`, which stops the run; then resumes it on a well-behaved model. */
  async function stopAndResume(
    respond: (request: FakeRequest, stop: () => void) => FakeReply | Promise<FakeReply>,
  ): Promise<{ outputs: Record<string, unknown>; before: string[]; resumed: string[]; journaled: unknown[] }> {
    const program = await loadProgram(PROGRAM, `races-resume-${++programs}.prose`);
    const runDir = join(temporaryFolder("prosec-e2e-races-resume-"), "run");
    const options = { apiKey: TEST_API_KEY, cwd: runDir, runDir, maxRetries: 0 };
    const controller = new AbortController();
    const first = await serve((request) => respond(request, () => controller.abort(new Error("stopped"))));
    await expect(program.run({}, { ...options, baseURL: first.url, signal: controller.signal })).rejects.toThrow();
    const journaled = journalValues(runDir);
    const second = await serve((request) => reply.text(`R(${task(request)})`));
    const outputs = await program.run({}, { ...options, baseURL: second.url, resume: true });
    return { outputs, before: asked(first), resumed: asked(second), journaled };
  }

  it("stopped after the race was decided: the winner replays, the loser is not asked again", async () => {
    const { outputs, resumed, journaled } = await stopAndResume((request, stop) => {
      const text = task(request);
      if (text === "after the race") {
        stop();
        return reply.hang();
      }
      // The second branch's first step answers at once, its second never: the first branch wins.
      if (text === "second branch, step 2") return reply.hang();
      if (text === "first branch") return reply.text("R(first branch)", { delayMs: 30 });
      return reply.text(`R(${text})`);
    });
    expect(journaled).toContain("R(first branch)");
    expect(resumed).toEqual(["after the race"]);
    expect(outputs).toEqual({ after: "R(after the race)", a: "R(first branch)", b: null });
  });

  it("stopped before the race was decided: what finished replays, the race is run on and decided again", async () => {
    const { outputs, before, resumed, journaled } = await stopAndResume((request, stop) => {
      const text = task(request);
      if (text === "second branch, step 2") {
        stop();
        return reply.hang();
      }
      if (text === "first branch") return reply.hang();
      return reply.text(`R(${text})`);
    });
    expect(before.sort()).toEqual(["first branch", "second branch, step 1", "second branch, step 2"]);
    expect(journaled).toEqual(["R(second branch, step 1)"]);
    // Nothing that finished is asked again; on a model that answers everything, the first branch wins.
    expect(resumed).not.toContain("second branch, step 1");
    expect(resumed).toContain("after the race");
    expect(outputs).toEqual({ after: "R(after the race)", a: "R(first branch)", b: null });
  });
});

describe("a branch failure the block goes on without is taken as a catch takes one", () => {
  /** Runs `source`, stopped when the model is asked `stop`; then resumed on a model under which nothing fails. */
  async function failThenResume(source: string): Promise<{
    events: Event[];
    journaled: unknown[];
    resumed: string[];
    outputs: Record<string, unknown>;
  }> {
    const program = await loadProgram(source, `races-taken-${++programs}.prose`);
    const runDir = join(temporaryFolder("prosec-e2e-races-taken-"), "run");
    const options = { apiKey: TEST_API_KEY, cwd: runDir, runDir, maxRetries: 0 };
    const controller = new AbortController();
    const first = await serve((request) => {
      const text = task(request);
      if (text.startsWith("fail")) return reply.error(500, { shouldRetry: false });
      if (text === "stop") {
        controller.abort(new Error("stopped"));
        return reply.hang();
      }
      // The others answer after the failure, so that it is taken while the block goes on.
      return reply.text(`R(${text})`, { delayMs: 30 });
    });
    const events: Event[] = [];
    await expect(
      program.run(
        {},
        { ...options, baseURL: first.url, signal: controller.signal, onEvent: (event: Event) => events.push(event) },
      ),
    ).rejects.toThrow();
    const journaled = journalValues(runDir);
    const second = await serve((request) => reply.text(`R(${task(request)})`));
    const outputs = await program.run({}, { ...options, baseURL: second.url, resume: true });
    return { events, journaled, resumed: asked(second), outputs };
  }

  it('on-fail: "continue": the failure is told and journaled, and a resumed run keeps its error record', async () => {
    const { events, journaled, resumed, outputs } = await failThenResume(
      lines(
        'parallel (on-fail: "continue"):',
        '  a = session "fail a"',
        '  b = session "ok b"',
        'let report = session "report"',
        "  context: [a, b]",
        'session "stop"',
        "output a = a",
        "output report = report",
      ),
    );
    expect(events.find((event) => event.type === "step-caught")).toMatchObject({ label: "fail a" });
    everySessionEnded(events.filter((event) => event.label !== "stop"));
    expect(journaled).toContain("R(report)");
    // The resumed run goes down the path the stopped one took: the branch's failure replays.
    expect(resumed).toEqual(["stop"]);
    expect(outputs).toEqual({ a: { error: expect.stringContaining("fail a failed") }, report: "R(report)" });
  });

  it('an "any" race that goes on past a failed branch: the failure is told and replays on resume', async () => {
    const { events, resumed, outputs } = await failThenResume(
      lines('parallel ("any"):', '  a = session "fail a"', '  b = session "ok b"', 'session "stop"', "output b = b"),
    );
    expect(events.find((event) => event.type === "step-caught")).toMatchObject({ label: "fail a" });
    expect(resumed).toEqual(["stop"]);
    expect(outputs).toEqual({ b: "R(ok b)" });
  });
});
