import { afterEach, describe, expect, it } from "vitest";
import { lastUserText, reply, startFakeAnthropic, systemText, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst, TEST_API_KEY } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

describe("sessions", () => {
  it("sends the session prompt through the real SDK and returns the model's text", async () => {
    server = await startFakeAnthropic({ script: [reply.text("The answer is 42.")] });
    const { result, events } = await runAgainst(server, (rt) =>
      rt.session({ at: at(3), prompt: "Compute the answer" }),
    );
    expect(result).toBe("The answer is 42.");
    const request = server.requests[0]!;
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["authorization"]).toBe(`Bearer ${TEST_API_KEY}`);
    expect(request.headers["anthropic-version"]).toBeDefined();
    expect(request.body?.model).toBe("claude-sonnet-5-5");
    expect(lastUserText(request)).toContain("Compute the answer");
    // The answer streams: its text arrives in `delta` events between the session's start and end.
    expect(request.body?.["stream"]).toBe(true);
    const kinds = events.map((event) => event.type).filter((type) => type !== "delta");
    expect(kinds).toEqual(["run-start", "session-start", "session-end", "run-end"]);
    const deltas = events.flatMap((event) => (event.type === "delta" ? [event.text] : []));
    expect(deltas.join("")).toBe("The answer is 42.");
  });

  it("uses the agent's prompt as system prompt, its model through the table, and dedents multi-line prompts", async () => {
    server = await startFakeAnthropic({ script: [reply.text("ok")] });
    const agent = { name: "researcher", model: "opus", prompt: "You research topics thoroughly." };
    await runAgainst(
      server,
      (rt) => rt.session({ at: at(5), agent, prompt: "\n    First line\n      indented\n    last\n  " }),
      { models: { opus: "my-opus" } },
    );
    const request = server.requests[0]!;
    expect(request.body?.model).toBe("my-opus");
    expect(systemText(request)).toContain("You research topics thoroughly.");
    expect(lastUserText(request)).toContain("First line\n  indented\nlast");
  });

  it("reads model ids from PROSEC_MODEL_<NAME> when the options do not override them", async () => {
    server = await startFakeAnthropic({ script: [reply.text("ok")] });
    process.env["PROSEC_MODEL_HAIKU"] = "env-haiku";
    try {
      await runAgainst(server, (rt) => rt.session({ at: at(1), model: "haiku", prompt: "x" }));
    } finally {
      delete process.env["PROSEC_MODEL_HAIKU"];
    }
    expect(server.requests[0]!.body?.model).toBe("env-haiku");
  });

  it("serializes record context under named sections and passes path context by reference", async () => {
    server = await startFakeAnthropic({ script: [reply.text("a"), reply.text("b")] });
    await runAgainst(server, async (rt) => {
      await rt.session({ at: at(1), prompt: "Summarize", context: { research: "Findings here", items: ["x", "y"] } });
      return rt.session({ at: at(2), prompt: "Read", context: ["docs/*.md"] });
    });
    // One block per binding (a longer context then extends a cached shorter one), before the task.
    const first = server.requests[0]!.body!.messages[0]!.content as Array<{ text: string }>;
    expect(first.map((block) => block.text)).toEqual([
      "## Context\n\n### research\n\nFindings here",
      "### items\n\n- x\n- y",
      "Summarize",
    ]);
    expect(lastUserText(server.requests[1]!)).toContain("- docs/*.md");
  });

  it("shortens context beyond the budget while keeping every binding visible", async () => {
    server = await startFakeAnthropic({ script: [reply.text("ok")] });
    const big = `${"A".repeat(5000)}${"Z".repeat(5000)}`;
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "p", context: { big, small: "tiny" } }), {
      contextBudget: 2000,
    });
    const sent = lastUserText(server.requests[0]!);
    expect(sent).toContain("characters omitted");
    expect(sent).toContain("AAAA");
    expect(sent).toContain("ZZZZ");
    expect(sent).toContain("### small\n\ntiny");
    expect(sent.length).toBeLessThan(3000);
  });

  it("tells a session inside a block its execution scope", async () => {
    server = await startFakeAnthropic({ script: [reply.text("ok")] });
    await runAgainst(server, (rt) =>
      rt.block(at(4), "process", undefined, () => rt.session({ at: at(5), prompt: "inside" })),
    );
    expect(lastUserText(server.requests[0]!)).toContain("execution_id: 1\n  block: process\n  depth: 1");
  });

  it("runs a tool-use loop: executes the tool, returns its result, ends with the final text", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "write_file", input: { path: "notes/out.txt", content: "hello" } }]),
        reply.toolUse([{ name: "read_file", input: { path: "notes/out.txt" } }]),
        reply.text("Done: wrote hello"),
      ],
    });
    const { result, events } = await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "Write a file" }));
    expect(result).toBe("Done: wrote hello");
    const third = server.requests[2]!.body!.messages;
    const lastResult = JSON.stringify(third[third.length - 1]);
    expect(lastResult).toContain("hello");
    expect(
      events
        .filter((event) => event.type === "tool")
        .map((event) => event.type === "tool" && [event.tool, event.allowed]),
    ).toEqual([
      ["write_file", true],
      ["read_file", true],
    ]);
    const end = events.find((event) => event.type === "session-end");
    expect(end?.type === "session-end" && end.usage.length).toBe(3);
  });

  it("offers extra tools from the run options", async () => {
    server = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "lookup", input: { id: 7 } }]), reply.text("found")],
    });
    const seen: unknown[] = [];
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "find" }), {
      tools: [
        {
          name: "lookup",
          description: "Looks up",
          inputSchema: { type: "object", properties: { id: { type: "number" } } },
          run: (input) => {
            seen.push(input["id"]);
            return "record 7";
          },
        },
      ],
    });
    expect(server.requests[0]!.body?.tools?.map((tool) => tool.name)).toContain("lookup");
    expect(seen).toEqual([7]);
    expect(JSON.stringify(server.requests[1]!.body!.messages.at(-1))).toContain("record 7");
  });

  it("fails with a ProseError naming the file, line and session when the turns run out", async () => {
    server = await startFakeAnthropic({ respond: () => reply.toolUse([{ name: "list_files", input: {} }]) });
    const error = await runAgainst(server, (rt) => rt.session({ at: at(9, 3), prompt: "loop forever" }), {
      maxTurns: 3,
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^examples\/test-program\.prose:9:3: .*3 model turns.*\(session "loop forever"\)/,
    );
    expect(server.requests).toHaveLength(3);
  });
});
