/**
 * Sessions stream (runtime/model/stream.ts): through the real SDK against the fake Messages API's
 * server-sent events. The message a streamed turn ends with is the one the whole request returns, so
 * the journal and the conversation sent back are the same; a stream cut short is sent again and its
 * text abandoned; secrets split across pieces never show; judgments are sent whole.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst, TEST_API_KEY, temporaryFolder } from "./helpers.js";
import type { RunEvent, Runtime } from "../../runtime/types.js";

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: Parameters<typeof startFakeAnthropic>[0]): Promise<FakeServer> {
  const server = await startFakeAnthropic(options);
  servers.push(server);
  return server;
}

const CACHED_USAGE = {
  input_tokens: 120,
  output_tokens: 37,
  cache_creation_input_tokens: 900,
  cache_read_input_tokens: 4000,
};

/** A turn that reads a file (text, then a tool call with nested JSON input), then the answer. */
function readingScript(request: FakeRequest): FakeReply {
  const turn = (request.body?.messages ?? []).filter((message) => message.role === "assistant").length;
  if (turn > 0) return reply.text("The notes say: remember the milk. ".repeat(3), { usage: CACHED_USAGE });
  return {
    kind: "message",
    stopReason: "tool_use",
    usage: CACHED_USAGE,
    content: [
      { type: "text", text: "Let me read the notes first, they should say what to do." },
      {
        type: "tool_use",
        id: "toolu_read",
        name: "read_file",
        input: { path: "notes.txt", options: { lines: [1, 2] } },
      },
    ],
  };
}

const readingSession = (rt: Runtime): Promise<string> =>
  rt.session({ at: at(2, 3), binding: "notes", prompt: "Read the notes", permissions: { read: ["*.txt"] } });

function journalTurns(runDir: string): unknown[] {
  return readFileSync(join(runDir, "journal.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { turn?: unknown; kind?: string; usage?: unknown; value?: unknown })
    .map((line) => line.turn ?? { kind: line.kind, usage: line.usage, value: line.value });
}

const DROPPED_ANSWER = "A full answer that arrives only on the second attempt.";

/** A session whose first stream drops after 20 characters and whose second gives the whole answer. */
async function droppedOnce(options: Parameters<typeof runAgainst>[2]) {
  const server = await serve({
    script: [reply.streamDrop(DROPPED_ANSWER, 20), reply.text(DROPPED_ANSWER)],
    stream: { chunkChars: 10 },
  });
  const run = await runAgainst(server, (rt) => rt.session({ at: at(4), prompt: "answer" }), {
    maxRetries: 1,
    ...options,
  });
  return { answer: DROPPED_ANSWER, server, ...run };
}

const deltasOf = (events: readonly RunEvent[]): string[] =>
  events.flatMap((event) => (event.type === "delta" ? [event.text] : []));

describe("streamed sessions", () => {
  it("end with the message the whole request returns: the same journal, the same conversation sent back", async () => {
    const runs = await Promise.all(
      [true, false].map(async (stream) => {
        const cwd = temporaryFolder();
        writeFileSync(join(cwd, "notes.txt"), "remember the milk\n");
        const runDir = join(cwd, ".prose", "runs", "run");
        const server = await serve({ respond: readingScript, stream: { chunkChars: 5 } });
        const { result, events } = await runAgainst(server, readingSession, { cwd, runDir, stream });
        return { result, events, server, journal: journalTurns(runDir) };
      }),
    );
    const [streamed, whole] = runs as [(typeof runs)[0], (typeof runs)[0]];
    expect(streamed.server.requests.map((request) => request.body?.["stream"])).toEqual([true, true]);
    expect(whole.server.requests.map((request) => request.body?.["stream"])).toEqual([undefined, undefined]);
    expect(streamed.server.requests.every((request) => request.stream?.end === "complete")).toBe(true);
    expect(streamed.result).toBe(whole.result);
    expect(streamed.journal).toEqual(whole.journal);
    // The tool call's input was built from JSON pieces, the usage kept its cache tokens.
    expect(JSON.stringify(streamed.journal)).toContain('"input":{"path":"notes.txt","options":{"lines":[1,2]}}');
    expect(JSON.stringify(streamed.journal)).toContain('"cacheReadTokens":4000');
    const { stream: _stream, ...sentBack } = streamed.server.requests[1]!.body!;
    expect(sentBack).toEqual(whole.server.requests[1]!.body);
    // The text arrived piece by piece, each turn's beginning marked; the whole run told nothing of it.
    const deltas = streamed.events.filter((event) => event.type === "delta");
    expect(deltas.length).toBeGreaterThan(10);
    expect(deltasOf(deltas).join("")).toBe(
      `Let me read the notes first, they should say what to do.${"The notes say: remember the milk. ".repeat(3)}`,
    );
    expect(deltas.filter((event) => event.type === "delta" && event.begins === true)).toHaveLength(2);
    expect(deltas[0]).toEqual(
      expect.objectContaining({ label: "Read the notes", at: { line: 2, column: 3 }, model: "claude-sonnet-5-5" }),
    );
    expect(deltasOf(whole.events)).toEqual([]);
  });

  it("sends a stream whose connection dropped again, and abandons the text it had shown", async () => {
    const { answer, server, result, events } = await droppedOnce({});
    expect(result).toBe(answer);
    expect(server.requests.map((request) => request.stream?.end)).toEqual(["dropped", "complete"]);
    const kinds = events.filter((event) => event.type === "delta" || event.type === "abandoned");
    const abandoned = kinds.findIndex((event) => event.type === "abandoned");
    expect(kinds[abandoned]).toEqual(expect.objectContaining({ characters: 20, model: "claude-sonnet-5-5" }));
    expect(deltasOf(kinds.slice(0, abandoned)).join("")).toBe(answer.slice(0, 20));
    expect(deltasOf(kinds.slice(abandoned + 1)).join("")).toBe(answer);
    // The call's usage counts the cut attempt too: the server reported (and bills) its input tokens.
    const whole = await serve({ script: [reply.text(answer)], stream: { chunkChars: 10 } });
    const once = await runAgainst(whole, (rt) => rt.session({ at: at(4), prompt: "answer" }));
    const usageOf = (run: RunEvent[]) => {
      const end = run.find((event) => event.type === "session-end");
      return end?.type === "session-end" ? end.usage : [];
    };
    expect(usageOf(events)).toHaveLength(1);
    expect(usageOf(events)[0]!.inputTokens).toBe(2 * usageOf(once.events)[0]!.inputTokens);
    expect(usageOf(events)[0]!.outputTokens).toBeGreaterThan(usageOf(once.events)[0]!.outputTokens);
  });

  it("sends a stream again after an overloaded_error event in its middle", async () => {
    const server = await serve({ script: [reply.streamError("Half of an answer", 8), reply.text("Whole answer")] });
    const { result, events } = await runAgainst(server, (rt) => rt.session({ at: at(4), prompt: "answer" }), {
      maxRetries: 2,
    });
    expect(result).toBe("Whole answer");
    expect(server.requests.map((request) => request.stream?.end)).toEqual(["error", "complete"]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "abandoned", reason: expect.stringMatching(/^overloaded_error: Overloaded/) }),
    );
  });

  it("fails as a dropped connection once the retries are spent, and as the API error an error event carries", async () => {
    const dropped = await serve({ respond: () => reply.streamDrop("cut every time", 4) });
    const { error } = await failingRun(dropped, (rt) => rt.session({ at: at(5), prompt: "answer" }), { maxRetries: 1 });
    expect(dropped.requests).toHaveLength(2);
    expect(error.message).toMatch(/5:1: answer failed: The answer's stream was cut/);
    expect((error.cause as Error).constructor.name).toBe("APIConnectionError");

    const refused = await serve({ script: [reply.streamError("no", 1, "invalid_request_error")] });
    const failed = await failingRun(refused, (rt) => rt.session({ at: at(5), prompt: "answer" }), { maxRetries: 2 });
    expect(refused.requests).toHaveLength(1);
    expect(failed.error.message).toMatch(/invalid_request_error/);
  });

  it("stream without telling the text when asked (streamEvents: false): no delta or abandoned event, the same answer", async () => {
    const { answer, server, result, events } = await droppedOnce({ streamEvents: false });
    expect(result).toBe(answer);
    expect(server.requests.map((request) => [request.body?.["stream"], request.stream?.end])).toEqual([
      [true, "dropped"],
      [true, "complete"],
    ]);
    expect(events.filter((event) => event.type === "delta" || event.type === "abandoned")).toEqual([]);
    expect(events.map((event) => event.type)).toContain("session-end");
  });

  it("never shows a secret split across pieces", async () => {
    const server = await serve({
      script: [reply.text(`The key is ${TEST_API_KEY}, and its reverse ${[...TEST_API_KEY].reverse().join("")}.`)],
      stream: { chunkChars: 3 },
    });
    const { result, events } = await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "leak" }));
    // Joined, the pieces are the redacted text: no piece showed a part of a secret either.
    const shown = deltasOf(events).join("");
    expect(shown).toBe("The key is [redacted], and its reverse [redacted].");
    expect(result).toBe(shown);
  });

  it("sends judgments whole", async () => {
    const server = await serve({
      script: [reply.text("draft"), reply.toolUse([{ name: "answer", input: { answer: true, reason: "fine" } }])],
    });
    const { events } = await runAgainst(server, async (rt) => {
      const draft = await rt.session({ at: at(1), prompt: "draft" });
      return rt.judge(at(2), "it is fine", { draft });
    });
    expect(server.requests.map((request) => request.body?.["stream"])).toEqual([true, undefined]);
    expect(deltasOf(events)).toEqual(["draft"]);
  });
});
