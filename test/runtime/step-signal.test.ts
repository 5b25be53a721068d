// The shared step signals of signals.ts: reused controllers and one deadline timer per limit must
// behave exactly like a fresh AbortController and setTimeout per step.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ProseError } from "../../runtime/errors.js";
import { outsideTimeLimit, stepSignal } from "../../runtime/signals.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst } from "./helpers.js";

let server: FakeServer | undefined;
afterEach(async () => server?.close());

const aborted = (signal: AbortSignal): Promise<unknown> =>
  new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));

describe("step signals", () => {
  it("a step that outlives its limit aborts with a ProseError, also after earlier steps reused the signal", async () => {
    const parent = new AbortController();
    for (let i = 0; i < 5; i++) stepSignal(parent.signal, 80).release();
    const started = Date.now();
    const step = stepSignal(parent.signal, 80);
    const reason = await aborted(step.signal);
    step.release();
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
    expect(reason).toBeInstanceOf(ProseError);
    expect((reason as ProseError).reason).toBe(
      "The step took longer than its time limit of 80 ms (RunOptions.stepTimeoutMs).",
    );
  });

  it("each step gets its own limit: a later step is not cut short by an earlier one's deadline", async () => {
    const parent = new AbortController();
    const first = stepSignal(parent.signal, 150);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = stepSignal(parent.signal, 150);
    const started = Date.now();
    await aborted(first.signal);
    expect(second.signal.aborted).toBe(false);
    await aborted(second.signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    first.release();
    second.release();
  });

  it("a step waiting for a person is out of its time limit, and has its whole limit again after", async () => {
    const parent = new AbortController();
    const held = stepSignal(parent.signal, 60);
    let decide!: () => void;
    const waiting = outsideTimeLimit(held.signal, () => new Promise<void>((resolve) => (decide = resolve)));
    // Started after `held`, with the same limit: without the hold, `held` would time out first.
    const other = stepSignal(parent.signal, 60);
    await aborted(other.signal);
    expect(held.signal.aborted).toBe(false);
    const decided = Date.now();
    decide();
    await waiting;
    await aborted(held.signal);
    expect(Date.now() - decided).toBeGreaterThanOrEqual(50);
    held.release();
    other.release();
  });

  it("steps running at once in one context get distinct signals", () => {
    const parent = new AbortController();
    const a = stepSignal(parent.signal, 1000);
    const b = stepSignal(parent.signal, 1000);
    expect(a.signal).not.toBe(b.signal);
    a.release();
    b.release();
  });

  it("forwards the context's cancellation while the step runs, and not after it was released", () => {
    const parent = new AbortController();
    const done = stepSignal(parent.signal, 1000);
    const doneSignal = done.signal;
    done.release();
    const running = stepSignal(parent.signal, 1000);
    parent.abort("stop");
    expect(running.signal.aborted).toBe(true);
    expect(running.signal.reason).toBe("stop");
    running.release();
    if (doneSignal !== running.signal) expect(doneSignal.aborted).toBe(false);
    const late = stepSignal(parent.signal, 1000);
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe("stop");
    late.release();
  });

  it("a session after finished sessions still times out, and the server sees the request aborted", async () => {
    let count = 0;
    server = await startFakeAnthropic({ respond: () => (++count <= 3 ? reply.text(`answer ${count}`) : reply.hang()) });
    const { error } = await failingRun(
      server,
      async (rt) => {
        for (let i = 0; i < 4; i++) await rt.session({ at: at(2 + i), prompt: `step ${i}` });
      },
      // Generous enough that an answered session never hits it on a loaded machine; only the hang does.
      { stepTimeoutMs: 2000 },
    );
    expect(error.message).toMatch(/5:1: The step took longer than its time limit of 2000 ms/);
    await vi.waitFor(() =>
      expect(server?.requests.map((request) => request.state)).toEqual(["answered", "answered", "answered", "aborted"]),
    );
  });

  it("sessions started together with a bare Promise.all each run under their own limit", async () => {
    server = await startFakeAnthropic({
      respond: (request) => (request.index === 0 ? reply.text("quick") : reply.text("slow", { delayMs: 150 })),
    });
    const { result } = await runAgainst(
      server,
      (rt) => Promise.all([rt.session({ at: at(1), prompt: "a" }), rt.session({ at: at(2), prompt: "b" })]),
      { stepTimeoutMs: 1000 },
    );
    expect(result).toEqual(["quick", "slow"]);
  });
});
