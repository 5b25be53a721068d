/**
 * A typed session whose model answers with JSON nested far deeper than any type (DIALECT.md "Typed
 * results"): the answer is wrong like any other, re-asked without echoing it, and the step fails
 * with a message that says how deep it was and how deep an answer may be. 100,000 levels deep as the
 * finding had it (sent whole and streamed); the other cases 20,000, which overflows every recursive
 * walk just as well.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryJournal } from "../../runtime/durable/journal.js";
import type { RunEvent, SessionRequest } from "../../runtime/types.js";
import { RawJson, reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst, temporaryFolder } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

const TITLES = { type: "array", items: { type: "string" } } as const;

const toolless: SessionRequest = {
  at: at(3),
  prompt: "List the titles",
  binding: "titles",
  permissions: { read: [], write: [] },
};

/** `{"answer": [[[ ... "x" ... ]]]}`, the list nested `depth` deep. */
const deepList = (depth: number) => `${"[".repeat(depth)}"x"${"]".repeat(depth)}`;
const deepAnswer = (depth: number) =>
  reply.toolUse([{ name: "answer", input: new RawJson(`{"answer":${deepList(depth)}}`) }]);
const good = reply.toolUse([{ name: "answer", input: { answer: ["Outage"] } }]);

const unexpected = (events: readonly RunEvent[]) =>
  events.flatMap((event) => (event.type === "unexpected-answer" ? [[event.problem, event.action, event.attempt]] : []));

describe("a typed answer nested 100,000 deep", () => {
  it("is a wrong answer: re-asked with what was wrong, then the right one is the value", async () => {
    server = await startFakeAnthropic({ script: [deepAnswer(100_000), good] });
    const journal = new MemoryJournal();
    const { result, events } = await runAgainst(server, (rt) => rt.session({ ...toolless, returns: TITLES }), {
      journal,
    });
    expect(result).toEqual(["Outage"]);
    expect(unexpected(events)).toEqual([["shape", "reask", 1]]);
    const correction = JSON.stringify(server.requests[1]!.body!.messages.at(-1));
    expect(correction).toContain("nests 100,001 levels deep");
    expect(correction).toContain("at most 64");
    const step = [...journal.steps.values()].find((recorded) => recorded.kind === "session")!;
    expect(step.problems).toEqual([expect.stringMatching(/^answer 1: .*100,001 levels deep/)]);
  });

  it("every time: the step fails saying how deep the answers were and how deep one may be", async () => {
    server = await startFakeAnthropic({ script: [deepAnswer(100_000), deepAnswer(100_000), deepAnswer(100_000)] });
    const { error, events } = await failingRun(server, (rt) => rt.session({ ...toolless, returns: TITLES }));
    expect(error.message).toContain("did not match the session's `returns:` type after 3 answers");
    expect(error.message).toContain("nests 100,001 levels deep; an answer may nest at most 64");
    expect(error.message).not.toContain("call stack");
    expect(unexpected(events).map(([, action]) => action)).toEqual(["reask", "reask", "fail"]);
  });

  it("streamed: the same, the stream's pieces joined before the depth is measured", async () => {
    server = await startFakeAnthropic({
      script: [deepAnswer(100_000), good],
      stream: { chunkChars: 50_000 },
    });
    const { result, events } = await runAgainst(server, (rt) => rt.session({ ...toolless, returns: TITLES }), {
      stream: true,
    });
    expect(server.requests[0]!.body!["stream"]).toBe(true);
    expect(result).toEqual(["Outage"]);
    expect(unexpected(events)).toEqual([["shape", "reask", 1]]);
  });

  it("in text: not read as JSON, so it is no answer", async () => {
    server = await startFakeAnthropic({ script: [reply.text(deepList(20_000)), good] });
    const { result, events } = await runAgainst(server, (rt) => rt.session({ ...toolless, returns: TITLES }));
    expect(result).toEqual(["Outage"]);
    expect(unexpected(events)).toEqual([["text", "reask", 1]]);
  });

  it("as another tool's input: a tool error the model sees, and the session goes on", async () => {
    const cwd = temporaryFolder();
    writeFileSync(join(cwd, "notes.txt"), "remember the milk\n");
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "read_file", input: new RawJson(`{"path":${deepList(20_000)}}`) }]),
        reply.text("I could not read it."),
      ],
    });
    const { result } = await runAgainst(
      server,
      (rt) => rt.session({ at: at(2), prompt: "Read the notes", permissions: { read: ["*.txt"] } }),
      { cwd },
    );
    expect(result).toBe("I could not read it.");
    const sent = JSON.stringify(server.requests[1]!.body!.messages.at(-1));
    expect(sent).toContain("Not run: the input nests 20,001 levels deep; an input may nest at most 64");
  });

  it("in a run with a folder: the failure is recorded and the run resumes from that step", async () => {
    const cwd = temporaryFolder();
    const runDir = join(cwd, ".prose", "runs", "run");
    const body = async (rt: Parameters<Parameters<typeof runAgainst>[1]>[0]) => {
      const plan = await rt.session({ at: at(1), prompt: "Plan", binding: "plan" });
      const titles = await rt.session<string[]>({ ...toolless, returns: TITLES });
      return [plan, ...titles];
    };
    server = await startFakeAnthropic({
      script: [reply.text("the plan"), deepAnswer(20_000), deepAnswer(20_000), deepAnswer(20_000)],
    });
    const { error } = await failingRun(server, body, { cwd, runDir });
    expect(error.message).toContain("nests 20,001 levels deep");
    // Every line of the journal is JSON a reader can parse: the stand-in, not the answer, was kept.
    const journal = readFileSync(join(runDir, "journal.jsonl"), "utf8");
    expect(
      journal
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as unknown),
    ).not.toEqual([]);
    expect(journal.length).toBeLessThan(20_000);
    await server.close();
    server = await startFakeAnthropic({ script: [good] });
    const { result } = await runAgainst(server, body, { cwd, runDir, resume: true });
    expect(result).toEqual(["the plan", "Outage"]);
    expect(server.requests).toHaveLength(1);
  });

  it("in a text a program reads a field of: not read as JSON, so the model is asked for the field", async () => {
    const text = `{"token":${deepList(20_000)}}`;
    server = await startFakeAnthropic({
      script: [reply.text(text), reply.toolUse([{ name: "answer", input: { answer: "t-1" } }])],
    });
    const { result } = await runAgainst(server, async (rt) => {
      const access = await rt.session({ at: at(1), prompt: "Log in", binding: "access" });
      return rt.field(at(2), access, "token");
    });
    expect(server.requests).toHaveLength(2);
    expect(result).toBe("t-1");
  });

  it("as a judgment's answer: asked again, the problem saying how deep it was", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "answer", input: new RawJson(`{"answer":${deepList(20_000)}}`) }]),
        reply.toolUse([{ name: "answer", input: { answer: true, reason: "done" } }]),
      ],
    });
    const { result, events } = await runAgainst(server, (rt) => rt.judge(at(4), "the work is done", {}));
    expect(result).toBe(true);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "unexpected-answer",
        action: "reask",
        detail: "the answer nests 20,001 levels deep; an answer may nest at most 64",
      }),
    );
  });
});
