/**
 * Generated programs run against the fake Messages API and are held to a reference interpreter
 * written apart from prosec (test/support/runnable-programs.ts): every session the program must ask
 * is asked once and none other, sequential ones one after another, the judgments it must ask, and the
 * outputs it must end with. A lost session or a wrong value is a wrong program, whatever the run says.
 * Seeds from PROSEC_RUNNABLE_SEEDS (`first-last`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  reply,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  startFakeAnthropic,
} from "../support/fake-anthropic.js";
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

const [first, last] = (process.env["PROSEC_RUNNABLE_SEEDS"] ?? "1-40").split("-").map(Number) as [number, number];

/** A session's task: its prompt (after a block call's scope). */
const task = (request: FakeRequest): string => firstUserText(request).replace(/^Execution scope:\n(?: {2}.*\n)*\n/, "");

/** The model the reference assumes. */
function answer(request: FakeRequest): FakeReply {
  if (callKind(request) === "judgment")
    return reply.toolUse([
      { name: "answer", input: { answer: verdict(judgmentCondition(request)), reason: "scripted" } },
    ]);
  const asked = task(request);
  if (asked.startsWith(FAILING)) return reply.error(500, { shouldRetry: false });
  return reply.text(sessionAnswer(asked));
}

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeAnthropic({ respond: answer });
});
afterAll(() => server.close());

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
