/**
 * Generated programs run against the fake Messages API and are held to a reference interpreter
 * written apart from prosec (test/support/runnable-programs.ts): every session the program must ask
 * is asked once and none other, sequential ones one after another, the judgments it must ask, and the
 * outputs it must end with. A lost session or a wrong value is a wrong program, whatever the run says.
 * Every fourth program is also stopped at one of its requests (the run's signal aborted) and resumed:
 * it must end with the same outputs, and no session journaled before the stop is asked again the same
 * way. Seeds from PROSEC_RUNNABLE_SEEDS (`first-last`; thousands pass).
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
import { callKind, judgmentCondition } from "../support/requests.js";
import {
  FAILING,
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

/** The model the reference assumes. */
function answer(request: FakeRequest): FakeReply {
  if (interrupt !== undefined && request.index === interrupt.at) {
    interrupt.controller.abort(new Error("stopped"));
    return reply.hang();
  }
  if (callKind(request) === "judgment")
    return reply.toolUse([
      { name: "answer", input: { answer: verdict(judgmentCondition(request)), reason: "scripted" } },
    ]);
  const asked = task(request);
  if (asked.startsWith(FAILING)) return reply.error(500, { shouldRetry: false });
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
  const loaded = await loadProgram(program.source, `generated-${program.seed}.prose`);
  const before = server.requests.length;
  const outputs = await loaded.run(
    {},
    { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-generated-run-"), maxRetries: 0 },
  );
  const requests = server.requests.slice(before);
  const sessions = requests.filter((request) => callKind(request) === "session").map(task);
  const context = `seed ${program.seed}:\n${program.source}`;
  expect([...sessions].sort(), context).toEqual([...program.expected.sessions].sort());
  expect(
    requests.filter((request) => callKind(request) === "judgment"),
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

/** What the journal of a run in `runDir` holds answered: the tasks of its sessions (their answers are `R(task)`). */
function journaledTasks(runDir: string): string[] {
  const path = join(runDir, "journal.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .flatMap((line) => {
      const value = (JSON.parse(line) as { value?: unknown }).value;
      return typeof value === "string" && value.startsWith("R(") ? [value.slice(2, -1)] : [];
    });
}

describe("generated programs stopped at a request and resumed end as their reference says", () => {
  const seeds = Array.from({ length: Math.ceil((last - first + 1) / 4) }, (_, index) => first + index * 4);
  it.each(seeds)("seed %i", async (seed) => {
    const program = runnableProgram(seed);
    const calls = program.expected.sessions.length + program.expected.judgments;
    const loaded = await loadProgram(program.source, `generated-resume-${seed}.prose`);
    const runDir = join(temporaryFolder("prosec-generated-resume-"), "run");
    const options = { apiKey: TEST_API_KEY, maxRetries: 0, cwd: runDir, runDir };
    const controller = new AbortController();
    const before = server.requests.length;
    interrupt = { at: before + (seed % calls), controller };
    await expect(loaded.run({}, { ...options, baseURL: server.url, signal: controller.signal })).rejects.toBeDefined();
    interrupt = undefined;
    const journaled = journaledTasks(runDir);
    // What each session of the stopped run was asked: the same task asked the same way is a finished step.
    const askedBefore = new Map(
      server.requests
        .slice(before)
        .filter((request) => callKind(request) === "session")
        .map((request) => [task(request), JSON.stringify(request.body?.messages)]),
    );

    // The resumed run has a server of its own: a request of the stopped run still on its way is not counted.
    const resumedFrom = resumeServer.requests.length;
    const outputs = await loaded.run({}, { ...options, baseURL: resumeServer.url, resume: true });
    const context = `seed ${seed}, stopped at call ${seed % calls}:\n${program.source}`;
    expect(outputs, context).toEqual(program.expected.outputs);
    const resumed = resumeServer.requests.slice(resumedFrom).filter((request) => callKind(request) === "session");
    const asked = resumed.map(task);
    expect(
      resumed
        .filter((request) => journaled.includes(task(request)))
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
        (each) => !each.startsWith(FAILING) && !asked.includes(each) && !journaled.includes(each),
      ),
      `${context}\nnever answered`,
    ).toEqual([]);
  });
});
