/**
 * Typed results end to end, as a property (DIALECT.md, "Typed results"): random `returns:` types,
 * each compiled and run against the fake Messages API with a model whose first answer does not fit
 * the type and whose second does. The wrong answer never reaches the app: it is asked again, and the
 * value the run gives is the right answer unchanged; a run resumed after that step replays the same
 * value. Which answers fit is decided by a checker written apart from the runtime's validator
 * (test/support/typed-values.ts). Seeds from PROSEC_TYPED_SEEDS (`first-last`).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { TYPED_CORRECTION_OPENING } from "../support/requests.js";
import { fits, proseType, typedCase } from "../support/typed-values.js";
import { firstUserText, loadProgram, TEST_API_KEY, temporaryFolder } from "./harness.js";
import { caseCount } from "../support/edit-loop.js";
import { lines } from "../support/lines.js";

const [first, last] = (process.env["PROSEC_TYPED_SEEDS"] ?? `1-${caseCount(30)}`).split("-").map(Number) as [
  number,
  number,
];

/** What the fake answers each request with, by arrival: set per case. */
let answers: ((request: FakeRequest) => FakeReply)[] = [];
let server: FakeServer;
beforeAll(async () => {
  server = await startFakeAnthropic({
    respond: (request) => answers[request.index]?.(request) ?? reply.error(500, { shouldRetry: false }),
  });
});
afterAll(() => server.close());

const answer = (value: unknown) => (): FakeReply => reply.toolUse([{ name: "answer", input: { answer: value } }]);

describe("a typed session's answer reaches the app only when it fits the type, unchanged", () => {
  const seeds = Array.from({ length: last - first + 1 }, (_, index) => first + index);
  it.each(seeds)("seed %i", async (seed) => {
    const { type, valid, invalid } = typedCase(seed);
    expect(fits(type, valid)).toBe(true);
    expect(fits(type, invalid)).toBe(false);
    const source = lines(
      'let r = session "Answer"',
      `  returns: ${proseType(type)}`,
      'let s = session "After"',
      "output r = r",
      "output s = s",
    );
    const context = `seed ${seed}: returns: ${proseType(type)}\nvalid: ${JSON.stringify(valid)}\ninvalid: ${JSON.stringify(invalid)}`;
    const program = await loadProgram(source, `typed-${seed}.prose`);
    const runDir = join(temporaryFolder("prosec-typed-property-"), "run");
    const options = { apiKey: TEST_API_KEY, baseURL: server.url, cwd: runDir, runDir, maxRetries: 0, reasks: 1 };

    // The wrong answer, then the right one; the run stops at the next session.
    const before = server.requests.length;
    const controller = new AbortController();
    answers = [];
    answers[before] = answer(invalid);
    answers[before + 1] = answer(valid);
    answers[before + 2] = () => {
      controller.abort(new Error("stopped"));
      return reply.hang();
    };
    await expect(program.run({}, { ...options, signal: controller.signal }), context).rejects.toBeDefined();
    const asked = server.requests.slice(before);
    expect(
      asked.map((request) => firstUserText(request).split("\n")[0]),
      context,
    ).toEqual(["Answer", "Answer", "After"]);
    expect(JSON.stringify(asked[1]!.body?.messages), context).toContain(TYPED_CORRECTION_OPENING);

    // Resumed: the typed step replays, and its value is the right answer as the model gave it.
    const resumedFrom = server.requests.length;
    answers[resumedFrom] = () => reply.text("after");
    const outputs = await program.run({}, { ...options, resume: true });
    expect(server.requests.length - resumedFrom, context).toBe(1);
    expect(outputs["r"], context).toStrictEqual(valid);
  });
});
