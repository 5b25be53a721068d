/**
 * Generated programs run against the fake Messages API and are held to a reference interpreter
 * written apart from prosec (test/support/runnable-programs.ts): every session the program must ask
 * is asked once and none other, sequential ones one after another, the judgments it must ask, and the
 * outputs it must end with. A lost session or a wrong value is a wrong program, whatever the run says.
 * Every fourth program is also stopped at one of its requests (the run's signal aborted) and resumed:
 * it must end with the same outputs, no session journaled before the stop is asked again the same
 * way, and exactly the judgments not journaled are asked. Seeds from PROSEC_RUNNABLE_SEEDS
 * (`first-last`; thousands pass).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  reply,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  startFakeAnthropic,
} from "../support/fake-anthropic.js";
import { caseCount } from "../support/edit-loop.js";
import { callKind, judgmentCondition, type CallKind } from "../support/requests.js";
import {
  FAILING,
  failuresOf,
  orderBroken,
  runnableProgram,
  sessionAnswer,
  verdict,
  type RunnableProgram,
} from "../support/runnable-programs.js";
import { firstUserText, loadProgram, TEST_API_KEY, temporaryFolder } from "./harness.js";

const [first, last] = (process.env["PROSEC_RUNNABLE_SEEDS"] ?? `1-${caseCount(16)}`).split("-").map(Number) as [
  number,
  number,
];

/** A session's task: its prompt (after a block call's scope). */
const task = (request: FakeRequest): string => firstUserText(request).replace(/^Execution scope:\n(?: {2}.*\n)*\n/, "");

/** A filter's session: its verdict comes through an `answer` tool with a `keep` field. */
function isVerdict(request: FakeRequest): boolean {
  return (
    request.body?.tools?.some((tool) => {
      const properties = (tool.input_schema as { properties?: object } | undefined)?.properties;
      return tool.name === "answer" && properties !== undefined && "keep" in properties;
    }) === true
  );
}

/** What kind of call `request` is, a filter's session a session. */
const kindOf = (request: FakeRequest): CallKind => (isVerdict(request) ? "session" : callKind(request));

/** How many times each task was asked in the current run (what a `FLAKY<k>` session fails by). */
const asks = new Map<string, number>();

/** The model the reference assumes (runnable-statements.ts). */
function answer(request: FakeRequest): FakeReply {
  if (interrupt !== undefined && request.index === interrupt.at) {
    interrupt.controller.abort(new Error("stopped"));
    return reply.hang();
  }
  if (kindOf(request) === "judgment")
    return reply.toolUse([
      { name: "answer", input: { answer: verdict(judgmentCondition(request)), reason: "scripted" } },
    ]);
  const asked = task(request);
  const before = asks.get(asked) ?? 0;
  asks.set(asked, before + 1);
  if (before < failuresOf(asked)) return reply.error(500, { shouldRetry: false });
  if (isVerdict(request))
    return reply.toolUse([{ name: "answer", input: { keep: verdict(asked), reason: sessionAnswer(asked) } }]);
  return reply.text(sessionAnswer(asked));
}

/** A run to stop when the server receives its request number `at`. */
let interrupt: { readonly at: number; readonly controller: AbortController } | undefined;

let server: FakeServer;
let resumeServer: FakeServer;
beforeAll(async () => {
  server = await startFakeAnthropic({ respond: answer });
  resumeServer = await startFakeAnthropic({ respond: answer });
});
afterAll(async () => {
  await server.close();
  await resumeServer.close();
});

async function runAndCompare(program: RunnableProgram): Promise<void> {
  const loaded = await loadProgram(program.source, program.file);
  asks.clear();
  const before = server.requests.length;
  const outputs = await loaded.run(
    {},
    { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-generated-run-"), maxRetries: 0 },
  );
  const requests = server.requests.slice(before);
  const sessions = requests.filter((request) => kindOf(request) === "session").map(task);
  const context = `seed ${program.seed}:\n${program.source}`;
  expect([...sessions].sort(), context).toEqual([...program.expected.sessions].sort());
  expect(
    requests.filter((request) => kindOf(request) === "judgment"),
    context,
  ).toHaveLength(program.expected.judgments);
  expect(requests.length, context).toBe(program.expected.sessions.length + program.expected.judgments);
  expect(orderBroken(program.expected.order, new Map(sessions.map((asked, index) => [asked, index]))), context).toBe(
    undefined,
  );
  expect(outputs, context).toEqual(program.expected.outputs);
}

describe("generated programs end as their reference says", () => {
  const seeds = Array.from({ length: last - first + 1 }, (_, index) => first + index);
  it.each(seeds)("seed %i", async (seed) => {
    await runAndCompare(runnableProgram(seed));
  });
});

/**
 * What the journal of a run in `runDir` holds answered: the tasks of its sessions (their answers are
 * `R(task)`; a filter's session's `yes: R(task)` or `no: R(task)`), and how many judgments.
 */
function journaled(runDir: string): { readonly tasks: string[]; readonly judgments: number } {
  const path = join(runDir, "journal.jsonl");
  if (!existsSync(path)) return { tasks: [], judgments: 0 };
  const records = readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { kind?: string; value?: unknown; failed?: unknown });
  const tasks = records.flatMap(({ value }) => {
    const answered = typeof value === "string" ? /^(?:(?:yes|no): )?R\((.*)\)$/s.exec(value) : null;
    return answered === null ? [] : [answered[1]!];
  });
  const judgments = records.filter((record) => record.kind === "judge" && record.failed === undefined).length;
  return { tasks, judgments };
}

describe("generated programs stopped at a request and resumed end as their reference says", () => {
  const seeds = Array.from({ length: Math.ceil((last - first + 1) / 4) }, (_, index) => first + index * 4);
  it.each(seeds)("seed %i", async (seed) => {
    const program = runnableProgram(seed);
    const calls = program.expected.sessions.length + program.expected.judgments;
    const loaded = await loadProgram(program.source, program.file);
    const runDir = join(temporaryFolder("prosec-generated-resume-"), "run");
    const options = { apiKey: TEST_API_KEY, maxRetries: 0, cwd: runDir, runDir };
    const controller = new AbortController();
    const before = server.requests.length;
    interrupt = { at: before + (seed % calls), controller };
    asks.clear();
    await expect(loaded.run({}, { ...options, baseURL: server.url, signal: controller.signal })).rejects.toBeDefined();
    interrupt = undefined;
    const { tasks: journaledTasks, judgments: journaledJudgments } = journaled(runDir);
    // What each session of the stopped run was asked: the same task asked the same way is a finished step.
    const askedBefore = new Map(
      server.requests
        .slice(before)
        .filter((request) => kindOf(request) === "session")
        .map((request) => [task(request), JSON.stringify(request.body?.messages)]),
    );

    // The resumed run has a server of its own: a request of the stopped run still on its way is not counted.
    const resumedFrom = resumeServer.requests.length;
    asks.clear();
    const outputs = await loaded.run({}, { ...options, baseURL: resumeServer.url, resume: true });
    const context = `seed ${seed}, stopped at call ${seed % calls}:\n${program.source}`;
    expect(outputs, context).toEqual(program.expected.outputs);
    const resumedRequests = resumeServer.requests.slice(resumedFrom);
    // A judgment journaled before the stop is read back, never asked again; the others are asked once each.
    expect(
      resumedRequests.filter((request) => kindOf(request) === "judgment"),
      `${context}\njudgments asked`,
    ).toHaveLength(program.expected.judgments - journaledJudgments);
    const resumed = resumedRequests.filter((request) => kindOf(request) === "session");
    const asked = resumed.map(task);
    expect(
      resumed
        .filter((request) => journaledTasks.includes(task(request)))
        .filter((request) => askedBefore.get(task(request)) === JSON.stringify(request.body?.messages))
        .map(task),
      `${context}\nasked again, the same way, though journaled`,
    ).toEqual([]);
    expect(
      asked.filter((each) => !program.expected.sessions.includes(each)),
      `${context}\nnot in the program`,
    ).toEqual([]);
    expect(
      program.expected.sessions.filter(
        (each) => !each.startsWith(FAILING) && !asked.includes(each) && !journaledTasks.includes(each),
      ),
      `${context}\nnever answered`,
    ).toEqual([]);
  });
});
