import { afterEach, describe, expect, it, vi } from "vitest";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

const oneSession = (rt: import("../../runtime/types.js").Runtime) => rt.session({ at: at(6, 2), prompt: "work" });

describe("transport failures", () => {
  it("waits for retry-after on 429 through the SDK's own retries, then succeeds", async () => {
    server = await startFakeAnthropic({
      script: [reply.error(429, { retryAfterSeconds: 0.3 }), reply.text("after the wait")],
    });
    const started = Date.now();
    const { result } = await runAgainst(server, oneSession, { maxRetries: 2 });
    expect(result).toBe("after the wait");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.receivedAt - server.requests[0]!.receivedAt).toBeGreaterThanOrEqual(280);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it("retries 500 and 529 and succeeds", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.error(500, { retryAfterSeconds: 0.01 }),
        reply.error(529, { retryAfterSeconds: 0.01 }),
        reply.text("recovered"),
      ],
    });
    const { result } = await runAgainst(server, oneSession, { maxRetries: 2 });
    expect(result).toBe("recovered");
    expect(server.requests).toHaveLength(3);
  });

  it("reports an error status that outlasts the retries as a ProseError with the line, session and cause", async () => {
    server = await startFakeAnthropic({ respond: () => reply.error(529, { retryAfterSeconds: 0.01 }) });
    const { error, events } = await failingRun(server, oneSession, { maxRetries: 1 });
    expect(error.name).toBe("ProseError");
    expect(error.message).toMatch(/^examples\/test-program\.prose:6:2: .*529.*\(session "work"\)$/);
    expect((error as Error & { cause?: unknown }).cause).toBeDefined();
    expect(server.requests).toHaveLength(2);
    expect(events.at(-2)).toEqual(expect.objectContaining({ type: "error", at: { line: 6, column: 2 } }));
    expect(events.at(-1)).toEqual(expect.objectContaining({ type: "run-end", ok: false }));
  });

  it("recovers from a dropped connection and from malformed JSON with retries", async () => {
    server = await startFakeAnthropic({
      script: [reply.drop(), reply.text("after drop"), reply.malformed(), reply.text("after malformed")],
    });
    const { result } = await runAgainst(
      server,
      async (rt) => [await oneSession(rt), await rt.session({ at: at(7), prompt: "again", retry: 1 })],
      { maxRetries: 1 },
    );
    expect(result).toEqual(["after drop", "after malformed"]);
  });

  it("fails clearly on malformed JSON without retries", async () => {
    server = await startFakeAnthropic({ script: [reply.malformed()] });
    const { error } = await failingRun(server, oneSession);
    expect(error.message).toMatch(/6:2: work failed: .*JSON/i);
  });

  it("times out a request that never answers (requestTimeoutMs) and the server sees it aborted", async () => {
    server = await startFakeAnthropic({ script: [reply.hang()] });
    const { error } = await failingRun(server, oneSession, { requestTimeoutMs: 200 });
    expect(error.message).toMatch(/6:2: .*timed? ?out/i);
    // The server sees the connection close once the client's abort reaches it.
    await vi.waitFor(() => expect(server!.requests[0]!.state).toBe("aborted"), { timeout: 10_000, interval: 10 });
  });
});

describe("retry: and the deadline", () => {
  it("retry: tries a failed session again with backoff", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.error(500, { shouldRetry: false }),
        reply.error(500, { shouldRetry: false }),
        reply.text("third time"),
      ],
    });
    const { result } = await runAgainst(
      server,
      (rt) => rt.session({ at: at(1), prompt: "flaky", retry: 2, backoff: "linear" }),
      { retryDelayMs: 100 },
    );
    expect(result).toBe("third time");
    const [a, b, c] = server.requests.map((request) => request.receivedAt);
    // `linear` waits the same delay before every retry (the schedule itself: test/runtime/retry.test.ts).
    expect(b! - a!).toBeGreaterThanOrEqual(90);
    expect(c! - b!).toBeGreaterThanOrEqual(90);
  });

  it("gives up after the retries and reports the last failure", async () => {
    server = await startFakeAnthropic({ respond: () => reply.error(500, { shouldRetry: false }) });
    const { error } = await failingRun(
      server,
      (rt) => rt.session({ at: at(1), prompt: "flaky", retry: 1, backoff: "exponential" }),
      { retryDelayMs: 10 },
    );
    expect(server.requests).toHaveLength(2);
    expect(error.message).toMatch(/500/);
  });

  it("a huge retry-after cannot stall the step past its time limit", async () => {
    server = await startFakeAnthropic({ respond: () => reply.error(429, { retryAfterSeconds: 3600 }) });
    const started = Date.now();
    const { error } = await failingRun(server, (rt) => rt.session({ at: at(3), prompt: "rate limited", retry: 5 }), {
      maxRetries: 5,
      stepTimeoutMs: 300,
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.message).toMatch(/3:1: The step took longer than its time limit of 300 ms/);
    expect(server.requests).toHaveLength(1);
  });

  it("the run deadline cancels whatever is running", async () => {
    server = await startFakeAnthropic({ respond: () => reply.hang() });
    const started = Date.now();
    const { error } = await failingRun(
      server,
      (rt) =>
        rt.parallel(at(1), {}, [
          () => rt.session({ at: at(2), prompt: "a" }),
          () => rt.session({ at: at(3), prompt: "b" }),
        ]),
      { deadlineMs: 1000 },
    );
    // Not hung on the requests that never answer (a loaded machine may take a while over the rest).
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(error.message).toMatch(/deadline of 1000 ms/);
    // Every request that reached the server is aborted, once the client's aborts reach it.
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
    await vi.waitFor(
      () => expect(server!.requests.map((request) => request.state)).toEqual(server!.requests.map(() => "aborted")),
      { timeout: 10_000, interval: 10 },
    );
  });

  it("the caller's signal cancels the run", async () => {
    server = await startFakeAnthropic({ respond: () => reply.hang() });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { error } = await failingRun(server, (rt) => rt.session({ at: at(1), prompt: "a" }), {
      signal: controller.signal,
    });
    expect(error.message).toMatch(/cancelled|abort/i);
  });
});
