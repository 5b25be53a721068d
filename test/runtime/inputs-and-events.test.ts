import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryJournal } from "../../runtime/durable/journal.js";
import { WaitingForInput, type Value } from "../../runtime/index.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst, TEST_API_KEY, temporaryFolder } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

const topic = { name: "topic", prompt: "The subject to research" };

describe("inputs", () => {
  it("uses supplied inputs first, then onInput", async () => {
    server = await startFakeAnthropic();
    const asked: string[] = [];
    const inputs = { topic: "AI", depth: undefined };
    const { result } = await runAgainst(
      server,
      async (rt) => [
        await rt.input(at(1), topic),
        await rt.input(at(2), { name: "depth", prompt: "How deep?" }),
        await rt.input(at(3), { name: "hasOwnProperty", prompt: "odd name" }),
      ],
      { onInput: (definition) => (asked.push(definition.name), `answer for ${definition.name}`) },
      inputs,
    );
    expect(result).toEqual(["AI", "answer for depth", "answer for hasOwnProperty"]);
    expect(asked).toEqual(["depth", "hasOwnProperty"]);
  });

  it("a missing input without a callback leaves the run waiting for it, naming the input and its prompt", async () => {
    server = await startFakeAnthropic();
    const { error } = await failingRun(server, (rt) => rt.input(at(2, 1), topic));
    expect(error).toBeInstanceOf(WaitingForInput);
    expect(error.message).toMatch(
      /test-program\.prose:2:1: The run is waiting for input: "topic" \(The subject to research\)\.$/,
    );
    expect((error as WaitingForInput).questions).toEqual([
      {
        name: "topic",
        prompt: "The subject to research",
        key: "/input@2:1#0",
        at: at(2, 1),
        program: "test-program",
        source: "examples/test-program.prose",
      },
    ]);
  });

  it("an answer given ahead answers the first occurrence only; a program's catch does not catch the wait", async () => {
    server = await startFakeAnthropic();
    const again = { name: "again", prompt: "Again?", midProgram: true };
    const answers: Value[] = [];
    const { error } = await failingRun(
      server,
      async (rt) => {
        for (let round = 0; round < 2; round++) {
          try {
            answers.push(await rt.input(at(4, 3), again));
          } catch (caught) {
            rt.catchable(caught);
            answers.push("caught");
          }
        }
      },
      {},
      { again: "first" },
    );
    expect(answers).toEqual(["first"]);
    expect((error as WaitingForInput).questions.map((question) => question.key)).toEqual(["/input@4:3#1"]);
  });

  it("(timeout: N): the deadline set by the first wait holds across resumes; once it passed, the input fails", async () => {
    server = await startFakeAnthropic();
    const runDir = join(temporaryFolder(), "run");
    const approval = { name: "approval", prompt: "Approve?", midProgram: true, timeoutSeconds: 3600 };
    const first = await failingRun(server, (rt) => rt.input(at(5, 1), approval), { runDir });
    const deadline = (first.error as WaitingForInput).questions[0]!.deadline!;
    expect(Date.parse(deadline) - Date.now()).toBeGreaterThan(3500_000);
    const waitingFile = join(runDir, "waiting.json");
    expect(JSON.parse(readFileSync(waitingFile, "utf8")).questions[0].deadline).toBe(deadline);

    const again = await failingRun(server, (rt) => rt.input(at(5, 1), approval), { runDir, resume: true });
    expect((again.error as WaitingForInput).questions[0]!.deadline).toBe(deadline);

    // The deadline passes (written as if it had): the resumed run's input fails, as an error a catch: may handle.
    const state = JSON.parse(readFileSync(waitingFile, "utf8"));
    writeFileSync(
      waitingFile,
      JSON.stringify({
        ...state,
        questions: [{ ...state.questions[0], deadline: new Date(Date.now() - 1000).toISOString() }],
      }),
    );
    const late = await failingRun(server, (rt) => rt.input(at(5, 1), approval), { runDir, resume: true });
    expect(late.error).not.toBeInstanceOf(WaitingForInput);
    expect(late.error.message).toMatch(
      /test-program\.prose:5:1: No answer to the input "approval" came within its timeout of 3600 s\.$/,
    );
  });

  it("an answered input is journaled, so a resumed run does not ask again", async () => {
    server = await startFakeAnthropic();
    const journal = new MemoryJournal();
    let asked = 0;
    const onInput = () => (asked++, "yes");
    await runAgainst(server, (rt) => rt.input(at(3), { name: "go", prompt: "Proceed?" }), { journal, onInput });
    await runAgainst(server, (rt) => rt.input(at(3), { name: "go", prompt: "Proceed?" }), { journal, onInput });
    expect(asked).toBe(1);
  });
});

describe("fail", () => {
  it("makes the ProseError a throw raises, at its .prose line; a parallel under continue records its message", async () => {
    server = await startFakeAnthropic();
    const { error, events } = await failingRun(server, async (rt) => {
      const results = await rt.parallel(at(1), { onFail: "continue" }, [
        () => Promise.reject(rt.fail(at(2, 5), "bad input")),
        () => Promise.resolve("fine"),
      ]);
      expect(results).toEqual([{ error: "bad input" }, "fine"]);
      throw rt.fail(at(9, 3));
    });
    expect(error).toMatchObject({
      name: "ProseError",
      file: "examples/test-program.prose",
      line: 9,
      column: 3,
      reason: "The program raised an error.",
    });
    expect(events).toContainEqual(expect.objectContaining({ type: "error", at: { line: 9, column: 3 } }));
  });
});

describe("events", () => {
  it("narrates positions, bindings, loops, sessions with usage per call, and totals per model at the end", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.text("first", { usage: { input_tokens: 100, output_tokens: 20 } }),
        reply.text("second", { usage: { input_tokens: 50, output_tokens: 5 } }),
        reply.toolUse([{ name: "answer", input: { answer: true, reason: "r" } }], {
          usage: { input_tokens: 7, output_tokens: 3 },
        }),
      ],
    });
    const { events } = await runAgainst(server, async (rt) => {
      rt.position(at(1), 'let a = session "first"');
      const a = rt.bind(at(1), "a", await rt.session({ at: at(1), prompt: "first" }));
      rt.iteration(at(2), 0);
      await rt.session({ at: at(3), model: "haiku", prompt: "second" });
      await rt.judge(at(4), "done", { a });
    });
    const kinds = events.map((event) => event.type).filter((type) => type !== "delta");
    expect(kinds).toEqual([
      "run-start",
      "position",
      "session-start",
      "session-end",
      "binding",
      "loop-iteration",
      "session-start",
      "session-end",
      "judgment",
      "run-end",
    ]);
    const narrated = events.filter((event) => event.type !== "delta");
    expect(narrated[4]).toEqual(expect.objectContaining({ name: "a", preview: "first", at: { line: 1, column: 1 } }));
    expect(narrated[3]).toEqual(
      expect.objectContaining({
        usage: [{ model: "claude-sonnet-5-5", inputTokens: 100, outputTokens: 20 }],
        replayed: false,
      }),
    );
    const end = events.at(-1);
    expect(end?.type === "run-end" && end.usage).toEqual([
      { model: "claude-sonnet-5-5", inputTokens: 107, outputTokens: 23 },
      { model: "claude-haiku-5-5", inputTokens: 50, outputTokens: 5 },
    ]);
    expect(events.every((event, index) => index === 0 || event.time >= events[index - 1]!.time)).toBe(true);
  });

  it("the API key never appears in any event, error or file the run writes", async () => {
    const cwd = temporaryFolder();
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([
          { name: "write_file", input: { path: "out.md", content: "report" } },
          { name: "update_memory", input: { memory: "remember", summary: "s" } },
        ]),
        reply.text("done"),
        reply.error(401, { message: `invalid x-api-key ${TEST_API_KEY}` }),
      ],
    });
    const agent = { name: "scribe", persist: "project" as const, prompt: "You write." };
    const { error, events } = await failingRun(
      server,
      async (rt) => {
        await rt.session({ at: at(1), agent, prompt: "write" });
        await rt.session({ at: at(2), prompt: "fails" });
      },
      { cwd, onPermission: () => true },
    );
    expect(error.message).not.toContain(TEST_API_KEY);
    expect(error.message).toContain("[redacted]");
    expect(JSON.stringify(events)).not.toContain(TEST_API_KEY);
    const files = listFiles(cwd);
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) expect(readFileSync(file, "utf8")).not.toContain(TEST_API_KEY);
  });
});

function listFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}
