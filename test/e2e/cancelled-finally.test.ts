/**
 * A cancelled `parallel` branch (the loser of a decided race, a sibling of a fail-fast failure) runs
 * its `finally`, sessions included; its `catch` does not catch the cancellation; the block completes
 * only after the cancelled branches finished, so an enclosing `catch` starts after them; and the
 * cancelled session ends as cancelled (DIALECT.md, "Parallel: races, failures, cancellation").
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { firstUserText, loadProgram, TEST_API_KEY, temporaryFolder } from "./harness.js";
import { lines } from "../support/lines.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let programs = 0;

interface Event {
  readonly type: string;
  readonly label?: string;
  readonly cancelled?: true;
}

/** A session's task line. */
function task(request: FakeRequest): string {
  return firstUserText(request).split("\n")[0]!;
}

/**
 * Runs `source` against a model where `slow` never answers, `fail` fails (non-retryable) and `fast`
 * answers, both once the `slow` request arrived (so the race is decided while it is in flight); any
 * other session answers `R(<task>)`.
 */
async function run(source: string): Promise<{ events: Event[]; error: unknown; outputs: unknown }> {
  let slowArrived: () => void = () => {};
  const slow = new Promise<void>((resolve) => (slowArrived = resolve));
  const respond = async (request: FakeRequest): Promise<FakeReply> => {
    const text = task(request);
    if (text.includes("slow")) {
      slowArrived();
      return reply.hang();
    }
    if (text.includes("fail")) {
      await slow;
      return reply.error(500, { shouldRetry: false });
    }
    if (text.includes("fast")) await slow;
    return reply.text(`R(${text})`);
  };
  server = await startFakeAnthropic({ respond });
  const program = await loadProgram(source, `cancelled-finally-${++programs}.prose`);
  const events: Event[] = [];
  let error: unknown;
  let outputs: unknown;
  try {
    outputs = await program.run(
      {},
      {
        apiKey: TEST_API_KEY,
        baseURL: server.url,
        cwd: temporaryFolder("prosec-e2e-cancelled-"),
        concurrency: 4,
        maxRetries: 0,
        onEvent: (event: Event) => events.push(event),
      },
    );
  } catch (caught) {
    error = caught;
  }
  return { events, error, outputs };
}

const asked = (): string[] => server!.requests.map(task);

function sessionEnd(events: readonly Event[], label: string): Event | undefined {
  return events.find((event) => event.type === "session-end" && event.label?.includes(label) === true);
}

function indexOf(events: readonly Event[], type: string, label: string): number {
  return events.findIndex((event) => event.type === type && event.label?.includes(label) === true);
}

describe("a cancelled branch runs its finally", () => {
  it('the loser of a "first" race: its request is aborted, its catch is skipped, its finally session runs', async () => {
    const { events, error, outputs } = await run(
      lines(
        'parallel ("first"):',
        '  a = session "fast"',
        "  b = try:",
        '    session "slow"',
        "  catch:",
        '    session "caught"',
        "  finally:",
        '    session "cleanup"',
        "output a = a",
      ),
    );
    expect(error).toBeUndefined();
    expect(outputs).toEqual({ a: "R(fast)" });
    expect(asked()).toContain("cleanup");
    expect(asked()).not.toContain("caught");
    expect(server!.requests.find((request) => task(request) === "slow")?.state).toBe("aborted");
    expect(server!.requests.find((request) => task(request) === "cleanup")?.state).toBe("answered");
    // The cancelled session ends as cancelled, and the cleanup before the block's end.
    expect(sessionEnd(events, "slow")).toMatchObject({ cancelled: true });
    expect(sessionEnd(events, "cleanup")?.cancelled).toBeUndefined();
    expect(indexOf(events, "session-end", "cleanup")).toBeLessThan(
      events.findIndex((event) => event.type === "parallel-end"),
    );
  });

  it("a sibling of a fail-fast failure runs its finally, and the block fails with the failure", async () => {
    const { events, error } = await run(
      lines(
        "parallel:",
        '  a = session "fail now"',
        "  b = try:",
        '    session "slow"',
        "  finally:",
        '    session "cleanup"',
        "output b = b",
      ),
    );
    expect(String(error)).toMatch(/cancelled-finally-\d+\.prose:2:/);
    expect(asked()).toContain("cleanup");
    expect(server!.requests.find((request) => task(request) === "slow")?.state).toBe("aborted");
    expect(server!.requests.find((request) => task(request) === "cleanup")?.state).toBe("answered");
    expect(sessionEnd(events, "slow")).toMatchObject({ cancelled: true });
  });

  it("an enclosing catch starts only after the cancelled branches finished their finally", async () => {
    const { events, error, outputs } = await run(
      lines(
        "let r = try:",
        "  parallel:",
        '    a = session "fail now"',
        "    b = try:",
        '      session "slow"',
        "    finally:",
        '      session "cleanup"',
        "catch:",
        '  session "recover"',
        "output r = r",
      ),
    );
    expect(error).toBeUndefined();
    expect(outputs).toEqual({ r: "R(recover)" });
    expect(asked().indexOf("cleanup")).toBeGreaterThanOrEqual(0);
    expect(asked().indexOf("recover")).toBeGreaterThan(asked().indexOf("cleanup"));
    expect(indexOf(events, "session-end", "cleanup")).toBeGreaterThanOrEqual(0);
    expect(indexOf(events, "session-start", "recover")).toBeGreaterThan(indexOf(events, "session-end", "cleanup"));
  });

  it('a "first" race completes after the loser\'s finally: what follows the block starts after it', async () => {
    const { events, error } = await run(
      lines(
        'parallel ("first"):',
        '  a = session "fast"',
        "  b = try:",
        '    session "slow"',
        "  finally:",
        '    session "cleanup"',
        'session "after"',
      ),
    );
    expect(error).toBeUndefined();
    expect(indexOf(events, "session-start", "after")).toBeGreaterThan(indexOf(events, "session-end", "cleanup"));
    // Every session that started ended.
    const started = events.filter((event) => event.type === "session-start").length;
    expect(events.filter((event) => event.type === "session-end")).toHaveLength(started);
  });
});
