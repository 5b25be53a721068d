/**
 * One table of cases for every RunStore (src/runs/run-store.ts): folder runs (test/runs/folder-store.test.ts)
 * and DBOS runs (test/dbos/run-store.test.ts) must answer them alike. A fixture gives the store and
 * the runs it holds: one complete (with session steps), two waiting for the same input.
 */
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import type { RunStore } from "../../src/runs/run-store.js";

export interface StoreFixture {
  readonly store: RunStore;
  /** A finished run whose steps include sessions with usage. */
  readonly complete: string;
  /** A run waiting for `input` that the cases answer. */
  readonly toAnswer: string;
  /** A run waiting for `input` that the cases cancel. */
  readonly toCancel: string;
  /** The input both waiting runs ask for. */
  readonly input: string;
}

/** The cases, in a sequence (the last two change the waiting runs); `fixture` is read when they run. */
export function runStoreCases(fixture: () => StoreFixture): void {
  describe.sequential("the RunStore contract", () => {
    it("lists its runs newest first, with status, steps and tokens", async () => {
      const { store, complete, toAnswer, toCancel } = fixture();
      const { runs } = await store.list();
      const byId = new Map(runs.map((run) => [run.runId, run]));
      expect([complete, toAnswer, toCancel].map((id) => byId.get(id)?.status)).toEqual([
        "complete",
        "waiting",
        "waiting",
      ]);
      expect(byId.get(complete)!.steps).toBeGreaterThan(0);
      expect(byId.get(complete)!.tokens).toBeGreaterThan(0);
      const started = runs.map((run) => Date.parse(run.startedAt ?? ""));
      expect(started).toEqual([...started].sort((a, b) => b - a));
    });

    it("finds a run by its id, with what it waits for; an unknown id is not found", async () => {
      const { store, complete, toAnswer, input } = fixture();
      expect(await store.find(complete)).toMatchObject({ runId: complete, status: "complete", waitingFor: [] });
      const waiting = await store.find(toAnswer);
      expect(waiting?.waitingFor).toEqual([expect.stringContaining(`prosec answer ${toAnswer} ${input}=`)]);
      expect(await store.find("no-such-run")).toBeUndefined();
      // An id that could name a path is no run at all.
      expect(await store.find("../runs")).toBeUndefined();
    });

    it("lists a run's steps: key, line, kind, status and tokens", async () => {
      const { store, complete } = fixture();
      const steps = await store.steps(complete);
      const sessions = steps.filter((step) => step.kind === "session");
      expect(sessions.length).toBeGreaterThan(0);
      for (const step of sessions) {
        expect(step).toMatchObject({ status: "finished", line: expect.any(Number) });
        expect(step.key).toMatch(/@\d+:\d+/);
        expect(step.tokens).toBeGreaterThan(0);
      }
      await expect(store.steps("no-such-run")).rejects.toThrow(UsageError);
    });

    it("refuses answers a run does not wait for, and approvals of a run that asks none", async () => {
      const { store, complete, toAnswer, input } = fixture();
      await expect(store.answer(toAnswer, { nothing: "x" })).rejects.toThrow(
        new UsageError(`run ${toAnswer} is not waiting for "nothing"; it waits for "${input}"`),
      );
      await expect(store.answer(complete, { [input]: "x" })).rejects.toThrow(
        new UsageError(`run ${complete} is not waiting for input`),
      );
      await expect(store.approve(toAnswer, { calls: [], all: false })).rejects.toThrow(
        new UsageError(`run ${toAnswer} is not waiting for an approval`),
      );
      await expect(store.deny(toAnswer, { calls: [], all: true, reason: "no" })).rejects.toThrow(
        new UsageError(`run ${toAnswer} is not waiting for an approval`),
      );
      await expect(store.answer("no-such-run", { [input]: "x" })).rejects.toThrow(UsageError);
    });

    it("takes an answer for what a run waits for", async () => {
      const { store, toAnswer, input } = fixture();
      const lines = await store.answer(toAnswer, { [input]: "engineers" });
      expect(lines).toEqual([expect.stringMatching(new RegExp(`^answered "${input}" for run ${toAnswer}; `))]);
    });

    it("cancels a waiting run, which is listed as cancelled from then on", async () => {
      const { store, toCancel } = fixture();
      expect(await store.cancel(toCancel)).toEqual([`run ${toCancel} cancelled`]);
      expect((await store.find(toCancel))?.status).toBe("cancelled");
      await expect(store.cancel("no-such-run")).rejects.toThrow(UsageError);
    });
  });
}
