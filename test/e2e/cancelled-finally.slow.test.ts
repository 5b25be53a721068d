/**
 * Cancelled branches over many generated programs: a `parallel` (`"first"`, `"any"` or `fail-fast`)
 * whose branches are answered (`fast`), failing (`fail`) or never answered (`slow`), the slow ones
 * often in a `try` with a `catch` and a `finally`, the block sometimes inside a `try` / `catch` and
 * followed by a session. Whatever the mix, every cancelled branch's `finally` session runs, its
 * `catch` never does, no session starts without an end, and what follows the block (the enclosing
 * `catch`, the next session) starts only after every `finally` ended.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { pick, seededRandom } from "../support/random.js";
import { firstUserText, loadProgram, TEST_API_KEY, temporaryFolder } from "./harness.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Event {
  readonly type: string;
  readonly label?: string;
}

interface Generated {
  readonly source: string;
  readonly slow: number;
  /** The `finally` sessions that must run, and the `catch` sessions that must not. */
  readonly cleanups: readonly string[];
  readonly catches: readonly string[];
  /** The session that must start after every cleanup ended: the enclosing catch's or the next one. */
  readonly after: string;
}

function generate(seed: number): Generated {
  const random = seededRandom(seed);
  const join = pick(random, ['("first")', '("any", count: 1)', ""]);
  const branches = 2 + Math.floor(random() * 3);
  // Something decides the block: a `fast` branch for a race, a `fail` for fail-fast (a race fails fast too).
  // (`"any"` waits out a failure while a success is still possible.)
  const decider = join === "" ? "fail" : join.includes("first") ? pick(random, ["fast", "fail"]) : "fast";
  const wrapped = random() < 0.5;
  const indent = wrapped ? "  " : "";
  const lines: string[] = [];
  const cleanups: string[] = [];
  const catches: string[] = [];
  let slow = 0;
  if (wrapped) lines.push("try:");
  lines.push(join === "" ? `${indent}parallel:` : `${indent}parallel ${join}:`);
  lines.push(`${indent}  d0 = session "${decider} 0"`);
  for (let branch = 1; branch < branches; branch++) {
    slow++;
    if (random() < 0.3) {
      lines.push(`${indent}  s${branch} = session "slow ${branch}"`);
      continue;
    }
    lines.push(`${indent}  s${branch} = try:`, `${indent}    session "slow ${branch}"`);
    if (random() < 0.5) {
      lines.push(`${indent}  catch:`, `${indent}    session "caught ${branch}"`);
      catches.push(`caught ${branch}`);
    }
    lines.push(`${indent}  finally:`, `${indent}    session "cleanup ${branch}"`);
    cleanups.push(`cleanup ${branch}`);
    if (random() < 0.3) lines.push(`${indent}    session "cleanup ${branch} again"`);
  }
  const fails = decider === "fail";
  if (wrapped) lines.push("catch:", '  session "recover"');
  lines.push('session "after"');
  // A failure with nothing to catch it ends the run: the cleanups must still have run.
  return {
    source: `${lines.join("\n")}\n`,
    slow,
    cleanups,
    catches,
    after: fails && wrapped ? "recover" : "after",
  };
}

async function run(program: Generated, seed: number): Promise<{ events: Event[]; asked: string[]; error: unknown }> {
  let arrived = 0;
  let allArrived: () => void = () => {};
  const slow = new Promise<void>((resolve) => (allArrived = resolve));
  const respond = async (request: FakeRequest): Promise<FakeReply> => {
    const task = firstUserText(request).split("\n")[0]!;
    if (task.startsWith("slow")) {
      if (++arrived === program.slow) allArrived();
      return reply.hang();
    }
    if (task.startsWith("fail")) {
      await slow;
      return reply.error(500, { shouldRetry: false });
    }
    if (task.startsWith("fast")) await slow;
    return reply.text(`R(${task})`);
  };
  server = await startFakeAnthropic({ respond });
  const loaded = await loadProgram(program.source, `cancelled-${seed}.prose`);
  const events: Event[] = [];
  let error: unknown;
  try {
    await loaded.run(
      {},
      {
        apiKey: TEST_API_KEY,
        baseURL: server.url,
        cwd: temporaryFolder("prosec-e2e-cancelled-property-"),
        concurrency: 8,
        maxRetries: 0,
        onEvent: (event: Event) => events.push(event),
      },
    );
  } catch (caught) {
    error = caught;
  }
  const asked = server.requests.map((request) => firstUserText(request).split("\n")[0]!);
  await server.close();
  server = undefined;
  return { events, asked, error };
}

describe("cancelled branches over generated programs", () => {
  it(
    "run every finally, skip every catch, end every session, and finish before what follows",
    { timeout: 300_000 },
    async () => {
      for (let seed = 1; seed <= 40; seed++) {
        const program = generate(seed);
        const { events, asked, error } = await run(program, seed);
        const where = `seed ${seed}:\n${program.source}`;
        for (const cleanup of program.cleanups) expect(asked, where).toContain(cleanup);
        for (const caught of program.catches) expect(asked, where).not.toContain(caught);
        // (A failed session ends with the error, not a session-end: only the cancelled ones are in question.)
        const sessions = (type: string) =>
          events.filter((event) => event.type === type && event.label?.startsWith("fail") !== true);
        expect(sessions("session-end"), where).toHaveLength(sessions("session-start").length);
        const lastCleanupEnd = Math.max(
          -1,
          ...events.flatMap((event, index) =>
            event.type === "session-end" && event.label?.startsWith("cleanup") === true ? [index] : [],
          ),
        );
        const after = events.findIndex((event) => event.type === "session-start" && event.label === program.after);
        if (error === undefined) {
          expect(after, where).toBeGreaterThan(lastCleanupEnd);
        } else {
          // Only an uncaught fail-fast failure ends the run, after the cleanups: nothing follows it.
          expect(asked, where).not.toContain("after");
        }
      }
    },
  );
});
