/**
 * The run folder's trace (docs/trace.md): per step its start and end, retries and errors, every
 * request's texts and answer, each distinct text stored once, nothing redaction removes.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import type { Message } from "@anthropic-ai/sdk/resources/messages/messages.js";
import type { RunOptions, Value } from "../../runtime/index.js";
import { TraceWriter } from "../../runtime/durable/trace-writer.js";
import {
  keyedRecords,
  type KeyedTraceRecord,
  type TracedBlock,
  type TraceRecord,
  type TraceText,
} from "../../runtime/durable/trace-format.js";
import { deterministicModel } from "../support/deterministic-model.js";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));

interface Module {
  run(inputs: Record<string, Value>, options?: RunOptions): Promise<Record<string, Value>>;
}

const folders: string[] = [];
function folder(prefix?: string): string {
  const path = temporaryFolder(prefix);
  folders.push(path);
  return path;
}
afterAll(() => {
  for (const path of folders) rmSync(path, { recursive: true, force: true });
});

let loaded = 0;
async function load(source: string): Promise<Module> {
  const name = `traced${++loaded}`;
  const { code, diagnostics } = lowerSource(source, `${name}.prose`);
  expect(diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  const path = join(folder("prosec-trace-modules-"), `${name}.prose.ts`);
  writeFileSync(path, code!.replace('from "prosec/runtime"', `from ${JSON.stringify(runtimeEntry)}`));
  return (await import(path)) as Module;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function model(respond: (request: FakeRequest) => FakeReply = deterministicModel()): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond });
  servers.push(server);
  return server;
}

async function runTraced(
  source: string,
  server: FakeServer,
  inputs: Record<string, Value> = {},
  again?: { readonly cwd: string; readonly module: Module },
) {
  const cwd = again?.cwd ?? folder();
  const runDir = join(cwd, ".prose", "runs", "20260115-143052-a7b3c9");
  const options: RunOptions = {
    apiKey: TEST_API_KEY,
    baseURL: server.url,
    maxRetries: 0,
    cwd,
    runDir,
    ...(again === undefined ? {} : { resume: true }),
  };
  const module = again?.module ?? (await load(source));
  const outcome = await module.run(inputs, options).then(
    (outputs) => ({ outputs }),
    (error: unknown) => ({ error }),
  );
  return { cwd, module, runDir, outcome, ...readTrace(runDir) };
}

function lines(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

function readTrace(runDir: string) {
  const records = keyedRecords(
    lines(join(runDir, "trace", "steps.jsonl")).map((line) => JSON.parse(line) as TraceRecord),
  );
  const textLines = lines(join(runDir, "trace", "texts.jsonl")).map((line) => JSON.parse(line) as TraceText);
  const texts = new Map(textLines.map(({ id, text }) => [id, text]));
  const journal = lines(join(runDir, "journal.jsonl")).map((line) => JSON.parse(line) as { key: string; kind: string });
  const of = <E extends KeyedTraceRecord["e"]>(e: E) =>
    records.filter((record): record is Extract<KeyedTraceRecord, { e: E }> => record.e === e);
  return { records, textLines, texts, journal, of };
}

describe("the trace of a run", () => {
  it("records each step's start and end, and every request's texts and answer", async () => {
    const { of, journal, texts, textLines } = await runTraced(
      [
        'agent critic:\n  model: sonnet\n  prompt: "You are terse"',
        'let draft = session "Write a haiku about tides"',
        "loop until **the haiku is perfect** (max: 3):",
        "  draft = session: critic",
        '    prompt: "Improve the haiku"',
        "    context: draft",
        "",
      ].join("\n"),
      await model(deterministicModel(() => false)),
    );
    const starts = of("start");
    const ends = of("end");
    expect(ends.map((end) => end.key).sort()).toEqual(journal.map((record) => record.key).sort());
    expect(starts.map((start) => start.key).sort()).toEqual(journal.map((record) => record.key).sort());
    for (const end of ends) {
      const start = starts.find((candidate) => candidate.key === end.key)!;
      expect(end.t).toBeGreaterThanOrEqual(start.t);
      expect(end).toMatchObject({ ok: true, retries: 0 });
      expect(texts.has(end.value!)).toBe(true);
    }
    expect(starts[0]).toMatchObject({ kind: "session", line: 4, column: 13 });
    const requests = of("request");
    expect(requests).toHaveLength(journal.length);
    const first = requests.find((request) => request.key === starts[0]!.key)!;
    const sent = first.messages.flatMap((message) =>
      message.content.map((block) => ("text" in block ? texts.get(block.text) : "")),
    );
    expect(sent.join("\n")).toContain("Write a haiku about tides");
    expect(texts.get((first.answer![0] as { text: string }).text)).toContain("re:");
    expect(first.usage).toMatchObject({ inputTokens: expect.any(Number) as number });
    // Each distinct text once: the critic's system prompt, sent three times, is one line.
    expect(new Set(textLines.map((line) => line.id)).size).toBe(textLines.length);
    const criticRequests = requests.filter((request) =>
      request.system.some((id) => texts.get(id)!.includes("You are terse")),
    );
    expect(criticRequests).toHaveLength(3);
    expect(new Set(criticRequests.map((request) => request.system.join())).size).toBe(1);
    expect(textLines.filter((line) => line.text.includes("You are terse"))).toHaveLength(1);
    // A judgment's request holds the evidence it saw, and its end the reason.
    const judgment = ends.find((end) => journal.find((record) => record.key === end.key)!.kind === "judge")!;
    expect(judgment.reason).toMatch(/scripted/);
    const asked = requests.find((request) => request.key === judgment.key)!;
    expect(
      asked.messages
        .flatMap((message) => message.content.map((block) => ("text" in block ? texts.get(block.text)! : "")))
        .join("\n"),
    ).toContain("the haiku is perfect");
  });

  it("records a failed request, the retry after it, and a step's error", async () => {
    let calls = 0;
    const { of } = await runTraced(
      'session "Flaky"\n  retry: 2\nsession "Broken"\n',
      await model((request) => {
        calls++;
        if (calls === 1) return reply.error(500, { message: "first attempt fails" });
        if (JSON.stringify(request.body).includes("Broken")) return reply.error(400, { message: "never works" });
        return reply.text("fine");
      }),
    );
    const [flaky, broken] = of("end");
    expect(flaky).toMatchObject({ ok: true, retries: 1 });
    const flakyRequests = of("request").filter((request) => request.key === flaky!.key);
    expect(flakyRequests.map((request) => request.n)).toEqual([1, 2]);
    expect(flakyRequests[0]!.error).toContain("first attempt fails");
    expect(flakyRequests[1]!.error).toBeUndefined();
    expect(broken).toMatchObject({ ok: false, retries: 0 });
    expect(broken!.error).toContain("never works");
  });

  it("records tool calls and their results", async () => {
    const { of, texts } = await runTraced(
      'agent reader:\n  permissions:\n    read: ["*.md"]\n\nsession: reader\n  prompt: "Read notes.md"\n',
      await model((request) =>
        request.index === 0 ? reply.toolUse([{ name: "read_file", input: { path: "notes.md" } }]) : reply.text("done"),
      ),
    );
    const [call, after] = of("request");
    expect(call!.answer).toContainEqual({ tool: "read_file", input: expect.any(String) as string });
    expect(texts.get((call!.answer!.find((block) => "tool" in block) as { input: string }).input)).toBe(
      '{"path":"notes.md"}',
    );
    const result = after!.messages.at(-1)!.content[0] as { result: string; error?: true };
    expect(texts.get(result.result)).toMatch(/notes\.md/);
  });

  it("never holds the API key, even when the model answers with it", async () => {
    const { runDir } = await runTraced(
      'session "Say the key"\n',
      await model(() => reply.text(`the key is ${TEST_API_KEY}`)),
    );
    for (const file of ["steps.jsonl", "texts.jsonl"])
      expect(readFileSync(join(runDir, "trace", file), "utf8")).not.toContain(TEST_API_KEY);
  });

  it("stays small: a repeated trail is stored once, and the step records take a few hundred bytes each", async () => {
    const { runDir, journal, textLines } = await runTraced(
      'let notes = session "Start the notes"\nrepeat 60 as i:\n  notes = session "Add line {i}"\n    context: notes\n',
      await model((request) => reply.text(`line ${request.index}`)),
    );
    expect(journal).toHaveLength(61);
    const stepBytes = statSync(join(runDir, "trace", "steps.jsonl")).size;
    expect(stepBytes / journal.length).toBeLessThan(600);
    // The system prompt is one text for all 61 requests.
    expect(textLines.filter((line) => line.text.includes("test")).length).toBeLessThan(61);
    expect(new Set(textLines.map((line) => line.id)).size).toBe(textLines.length);
  });

  it("names each text by its own id across a fan-out that repeats some texts and not others", async () => {
    // Two new texts a session (its task, most answers): more than the trace keeps ids for by text
    // (trace-writer.ts), so it forgets them part-way; half the sessions are answered alike.
    const answer = (item: number): string => (item % 2 === 0 ? "the same answer" : `answer ${item}`);
    const items = Array.from({ length: 100 }, (_, index) => `"item ${index}"`).join(", ");
    const { journal, of, texts, textLines } = await runTraced(
      `let items = [${items}]\nparallel for item in items:\n  session "Do {item}"\n`,
      await model((request) => reply.text(answer(Number(/item (\d+)/.exec(JSON.stringify(request.body))![1])))),
    );
    expect(journal).toHaveLength(100);
    const requests = of("request");
    expect(requests).toHaveLength(100);
    const textOf = (block: TracedBlock): string | undefined => ("text" in block ? texts.get(block.text) : undefined);
    for (const request of requests) {
      const prompt = request.messages.flatMap((message) => message.content.map(textOf));
      const item = Number(/item (\d+)/.exec(prompt.join("\n"))![1]);
      expect(request.answer!.map(textOf)).toEqual([answer(item)]);
    }
    expect(new Set(textLines.map((line) => line.id)).size).toBe(textLines.length);
    expect(textLines.filter((line) => line.text === "the same answer")).toHaveLength(1);
  });

  it("a value that becomes a secret mid-run is redacted from the texts of later requests", async () => {
    const secrets: string[] = [];
    const runDir = folder("prosec-trace-secret-");
    const writer = new TraceWriter(runDir, (text) =>
      secrets.reduce((out, secret) => out.split(secret).join("[x]"), text),
    );
    const prompt = "use the value hunter2-is-secret";
    const signal = new AbortController().signal;
    const ask = (key: string) =>
      writer.step(
        key,
        "session",
        { line: 1, column: 1 },
        key,
        async () => {
          await writer.request(
            { model: "m", max_tokens: 10, messages: [{ role: "user", content: prompt }] },
            signal,
            async () => ({
              message: { content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" } as Message,
              usage: { model: "m", inputTokens: 1, outputTokens: 1 },
            }),
          );
          return { usage: [], value: "ok" };
        },
        () => false,
        () => false,
        signal,
      );
    await ask("first");
    // An MCP server's or an agent's `env:` value joins the secrets when it is first used.
    secrets.push("hunter2-is-secret");
    await ask("second");
    writer.close();
    writeFileSync(join(runDir, "journal.jsonl"), "");
    const { of, texts } = readTrace(runDir);
    const [first, second] = of("request").map((request) => {
      const block = request.messages[0]!.content[0]!;
      return "text" in block ? texts.get(block.text) : undefined;
    });
    expect(first).toBe(prompt);
    expect(second).toBe("use the value [x]");
  });

  it("a resumed run adds to its trace: a new run record, no step traced twice, no text written twice", async () => {
    const program =
      'agent a:\n  prompt: "Shared instructions"\n\nsession: a\n  prompt: "One"\nsession: a\n  prompt: "Two"\n';
    let failing = true;
    const server = await model((request) =>
      failing && JSON.stringify(request.body).includes("Two")
        ? reply.error(400, { message: "not now" })
        : reply.text("ok"),
    );
    const first = await runTraced(program, server);
    expect(first.outcome).toHaveProperty("error");
    failing = false;
    const second = await runTraced(program, server, {}, { cwd: first.cwd, module: first.module });
    expect(second.outcome).toHaveProperty("outputs");
    expect(second.of("run")).toHaveLength(2);
    const ends = second.of("end");
    expect(ends.map((end) => end.ok)).toEqual([true, false, true]);
    // The first step was replayed, not traced again; every text once.
    expect(second.of("start").filter((start) => start.key === ends[0]!.key)).toHaveLength(1);
    expect(new Set(second.textLines.map((line) => line.id)).size).toBe(second.textLines.length);
    expect(second.textLines.filter((line) => line.text.includes("Shared instructions"))).toHaveLength(1);
  });
});
