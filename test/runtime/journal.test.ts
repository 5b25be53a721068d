import { afterEach, describe, expect, it } from "vitest";
import { MemoryJournal } from "../../runtime/durable/journal.js";
import type { Journal, RecordedStep } from "../../runtime/index.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

describe("journal", () => {
  it("records judgments, choices and model extractions with their reasons and replays them without the model", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "answer", input: { answer: true, reason: "all green" } }]),
        reply.toolUse([{ name: "answer", input: { answer: "B", reason: "closer" } }]),
        reply.toolUse([{ name: "answer", input: { answer: ["p", "q"] } }]),
      ],
    });
    const journal = new MemoryJournal();
    const body = async (rt: import("../../runtime/types.js").Runtime) => [
      await rt.judge(at(1), "green", {}),
      await rt.choose(at(2), "pick", ["A", "B"], {}),
      await rt.list(at(3), "p and q"),
    ];
    const first = await runAgainst(server, body, { journal });
    const replay = await runAgainst(server, body, { journal });
    expect(server.requests).toHaveLength(3);
    expect(replay.result).toEqual(first.result);
    expect(replay.result).toEqual([true, 1, ["p", "q"]]);
    expect(
      replay.events
        .filter((event) => event.type === "judgment")
        .map((event) => event.type === "judgment" && event.reason),
    ).toEqual(["all green", "closer"]);
  });

  it("a replayed choice that names none of the options is an error, not a run of no option", async () => {
    server = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "answer", input: { answer: "B", reason: "r" } }])],
    });
    const journal = new MemoryJournal();
    const body = (rt: import("../../runtime/types.js").Runtime) => rt.choose(at(2), "pick", ["A", "B"], {});
    expect((await runAgainst(server, body, { journal })).result).toBe(1);
    for (const [key, step] of journal.steps) journal.steps.set(key, { ...step, value: 2 });
    const { error } = await failingRun(server, body, { journal });
    expect(error.message).toMatch(/the choice's answer 2 names none of its 2 options/);
    expect(server.requests).toHaveLength(1);
  });

  it("writes each step before the next one starts", async () => {
    server = await startFakeAnthropic({ respond: () => reply.text("ok") });
    const order: string[] = [];
    const slowJournal: Journal = {
      get: () => Promise.resolve(undefined),
      put: async (key: string, _step: RecordedStep) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        order.push(`put ${key}`);
      },
    };
    await runAgainst(
      server,
      async (rt) => {
        await rt.session({ at: at(1), prompt: "one" });
        order.push(`request ${server.requests.length + 1}`);
        await rt.session({ at: at(2), prompt: "two" });
      },
      { journal: slowJournal },
    );
    expect(order).toEqual(["put /session@1:1#0", "request 2", "put /session@2:1#0"]);
  });
});
