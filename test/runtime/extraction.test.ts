import { afterEach, describe, expect, it } from "vitest";
import { MemoryJournal } from "../../runtime/durable/journal.js";
import { parseJson, parseList, parseMarkdownList, parseYesNo } from "../../runtime/values/structure.js";
import { askedText, lastUserText, reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst } from "./helpers.js";

let server: FakeServer;
afterEach(async () => server?.close());

describe("deterministic parsing", () => {
  it("reads JSON whole or in a code fence", () => {
    expect(parseJson(' [1, "a"] ')).toEqual([1, "a"]);
    expect(parseJson('Here you go:\n```json\n{"token": "abc"}\n```\nThanks')).toEqual({ token: "abc" });
    expect(parseJson("not json {")).toBeUndefined();
  });
  it("reads the outer level of the first markdown list, with continuation lines", () => {
    expect(parseMarkdownList("Parts:\n- one\n- two\n  more\n  - nested\n- three\n\nAfter")).toEqual([
      "one",
      "two\nmore\n- nested",
      "three",
    ]);
    expect(parseMarkdownList("1. first\n2) second")).toEqual(["first", "second"]);
    expect(parseMarkdownList("no list here")).toBeUndefined();
  });
  it("finds a list in JSON, a record with one list field, or markdown", () => {
    expect(parseList('{"items": ["a", "b"], "count": 2}')).toEqual(["a", "b"]);
    expect(parseList("* x\n* y")).toEqual(["x", "y"]);
  });
  it("reads a leading yes or no", () => {
    expect(parseYesNo("**Yes** — keep it")).toBe(true);
    expect(parseYesNo("no, drop it")).toBe(false);
    expect(parseYesNo("Maybe")).toBeUndefined();
  });
});

describe("list, field and truthy at run time", () => {
  it("parses without the model and says so in an extraction event", async () => {
    server = await startFakeAnthropic();
    const { result, events } = await runAgainst(server, async (rt) => [
      await rt.list(at(1), "- a\n- b"),
      await rt.field(at(2), '```json\n{"token": "t1"}\n```', "token"),
      await rt.field(at(3), "1. first\n2. second", 1),
      await rt.field(at(4), { a: { b: 2 } }, "a"),
      await rt.truthy(at(5), "Yes, keep it."),
      await rt.truthy(at(6), ""),
    ]);
    expect(result).toEqual([["a", "b"], "t1", "second", { b: 2 }, true, false]);
    expect(server.requests).toHaveLength(0);
    expect(
      events
        .filter((event) => event.type === "extraction")
        .map((event) => event.type === "extraction" && `${event.shape}:${event.method}`),
    ).toEqual(["list:parse", "field:parse", "field:parse", "boolean:parse", "boolean:parse"]);
  });

  it("asks the model through a forced tool when parsing fails", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "answer", input: { answer: ["alpha", "beta"] } }]),
        reply.toolUse([{ name: "answer", input: { answer: "v2.1" } }]),
        reply.toolUse([{ name: "answer", input: { answer: false, reason: "negative" } }]),
      ],
    });
    const { result, events } = await runAgainst(server, async (rt) => [
      await rt.list(at(1), "The parts are alpha and also beta."),
      await rt.field(at(2), "We shipped version v2.1 last week.", "version"),
      await rt.truthy(at(3), "I would rather not include this item."),
    ]);
    expect(result).toEqual([["alpha", "beta"], "v2.1", false]);
    expect(server.requests.every((request) => request.body?.tool_choice?.type === "tool")).toBe(true);
    expect(lastUserText(server.requests[1]!)).toContain('the field "version"');
    expect(
      events.filter((event) => event.type === "extraction").map((event) => event.type === "extraction" && event.method),
    ).toEqual(["model", "model", "model"]);
  });

  it("asks once per run for the same text: a nested loop over one text reads one list", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "answer", input: { answer: ["alpha", "beta"] } }]),
        reply.toolUse([{ name: "answer", input: { answer: "v2.1" } }]),
      ],
    });
    const text = "The parts are alpha and also beta.";
    const { result } = await runAgainst(server, async (rt) => {
      const pairs: string[] = [];
      for (const outer of await rt.list(at(1), text))
        for (const inner of await rt.list(at(2), text)) pairs.push(`${String(outer)}/${String(inner)}`);
      return [pairs, await rt.field(at(3), text, "version"), await rt.field(at(4), text, "version")];
    });
    expect(result).toEqual([["alpha/alpha", "alpha/beta", "beta/alpha", "beta/beta"], "v2.1", "v2.1"]);
    expect(server.requests).toHaveLength(2);
  });

  it("a branch that lost a race cancels only its own reading: the next reader of the same text asks again", async () => {
    // Found by the generated programs (test/soundness): the loser's cancelled extraction was shared.
    server = await startFakeAnthropic({
      respond: (request) =>
        request.body?.tool_choice === undefined
          ? reply.text("fast")
          : reply.toolUse([{ name: "answer", input: { answer: "v2.1" } }], { delayMs: 200 }),
    });
    const text = "We shipped version v2.1 last week.";
    const { result } = await runAgainst(server, async (rt) => {
      await rt.parallel(at(1), { join: "first" }, [
        () => rt.session({ at: at(2), prompt: "Quick" }),
        () => rt.field(at(3), text, "version"),
      ]);
      return rt.field(at(4), text, "version");
    });
    expect(result).toBe("v2.1");
  });
});

describe("fewer model calls", () => {
  it("reads several fields of one text in one question, and answers the later fields from it", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "answer", input: { answer: { owner: "Ada", title: "Tides", items: ["a", "b"] } } }]),
      ],
    });
    const fields = ["items", "owner", "title"];
    const text = "Ada wrote about tides, covering a and b.";
    const { result, events } = await runAgainst(server, async (rt) => [
      await rt.field(at(1), text, "title", fields),
      await rt.field(at(2), text, "items", fields),
      await rt.field(at(3), text, "owner", fields),
    ]);
    expect(result).toEqual(["Tides", ["a", "b"], "Ada"]);
    expect(server.requests).toHaveLength(1);
    expect(askedText(server.requests[0]!)).toBe('What are the fields "items", "owner", "title" in this text?');
    expect(events.filter((event) => event.type === "extraction")).toHaveLength(1);
  });

  it("resumes a run recorded before fields were read together: each site's own recorded answer is replayed", async () => {
    server = await startFakeAnthropic();
    const journal = new MemoryJournal();
    const fields = ["owner", "title"];
    const text = "Ada wrote about tides.";
    await journal.put("/extract@1:1#0", { kind: "extract", value: "Tides", usage: [] });
    await journal.put("/extract@2:1#0", { kind: "extract", value: "Ada", usage: [] });
    const { result } = await runAgainst(
      server,
      async (rt) => [await rt.field(at(1), text, "title", fields), await rt.field(at(2), text, "owner", fields)],
      { journal },
    );
    expect(result).toEqual(["Tides", "Ada"]);
    expect(server.requests).toHaveLength(0);
  });

  it("a filter's verdict is one forced tool call when the session has no other tools", async () => {
    server = await startFakeAnthropic({
      respond: (request) =>
        reply.toolUse([{ name: "answer", input: { keep: askedText(request).includes("tin"), reason: "metal check" } }]),
    });
    const noTools = { read: [], write: [], bash: "deny", network: "deny" } as const;
    const { result } = await runAgainst(server, async (rt) => {
      const kept: string[] = [];
      for (const item of ["tin", "wool"])
        if (
          await rt.truthy(
            at(2),
            await rt.session({ at: at(1), prompt: `Is ${item} a metal?`, keep: true, permissions: noTools }),
          )
        )
          kept.push(item);
      return kept;
    });
    expect(result).toEqual(["tin"]);
    expect(server.requests).toHaveLength(2);
    expect(
      server.requests.map((request) => [request.body?.tool_choice, request.body?.tools?.map((tool) => tool.name)]),
    ).toEqual([
      [{ type: "tool", name: "answer" }, ["answer"]],
      [{ type: "tool", name: "answer" }, ["answer"]],
    ]);
  });

  it("offers the verdict tool without forcing it to an agent with tools; a free-text answer is still read", async () => {
    server = await startFakeAnthropic({
      script: [
        reply.toolUse([{ name: "answer", input: { keep: false, reason: "not a metal" } }]),
        reply.text("Hard to say without more data."),
      ],
      respond: () => reply.toolUse([{ name: "answer", input: { answer: true, reason: "read" } }]),
    });
    const { result } = await runAgainst(server, async (rt) => [
      await rt.session({ at: at(1), prompt: "Is wool a metal?", keep: true }),
      await rt.truthy(at(2), await rt.session({ at: at(3), prompt: "Is tin a metal?", keep: true })),
    ]);
    expect(result).toEqual(["no: not a metal", true]);
    expect(server.requests[0]!.body?.tool_choice).toBeUndefined();
    expect(server.requests[0]!.body?.tools?.map((tool) => tool.name)).toContain("read_file");
    expect(server.requests[0]!.body?.tools?.map((tool) => tool.name)).toContain("answer");
    // The free-text reply needed the model once more to read it.
    expect(server.requests).toHaveLength(3);
  });
});
