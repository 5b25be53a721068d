/**
 * OpenTelemetry spans of a compiled program run by an application, no CLI (docs/production.md,
 * "Tracing"): the app registers a provider with an in-memory exporter; the run's spans nest as the
 * program does (parallel branches as siblings under their block, turns and tool calls under their
 * step), carry the GenAI conventions and prosec's attributes, show retries, re-asks and errors, keep
 * prompt text off unless opted in (then redacted), and a resumed run links to the run it continues.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { context, propagation, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import type { RunOptions, ToolDefinition, Value } from "../../runtime/index.js";
import { runTraceparent } from "../../runtime/telemetry/traceparent.js";
import { deterministicModel } from "../support/deterministic-model.js";
import {
  lastUserText,
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "./helpers.js";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));

interface Module {
  run(inputs: Record<string, Value>, options?: RunOptions): Promise<Record<string, Value>>;
}

const folders: string[] = [];
function folder(): string {
  const path = temporaryFolder("prosec-otel-");
  folders.push(path);
  return path;
}

let loaded = 0;
async function load(source: string, name = `otel${++loaded}`, into = folder()): Promise<Module> {
  const { code, diagnostics } = lowerSource(source, `${name}.prose`, {
    resolveImport: () => ({ inputs: ["topic"], outputs: ["summary"] }),
  });
  expect(diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  const path = join(into, `${name}.prose.ts`);
  writeFileSync(path, code!.replace('from "prosec/runtime"', `from ${JSON.stringify(runtimeEntry)}`));
  return (await import(path)) as Module;
}

const servers: FakeServer[] = [];
// A provider's shutdown stops its exporter: each test registers a new one.
let exporter = new InMemorySpanExporter();
let provider: BasicTracerProvider | undefined;
const savedEnv = { ...process.env };

/** Registers `kind` as the app would: NodeTracerProvider brings a context manager, BasicTracerProvider alone none. */
function register(kind: "node" | "basic"): void {
  exporter = new InMemorySpanExporter();
  const options = { spanProcessors: [new SimpleSpanProcessor(exporter)] };
  if (kind === "node") {
    const node = new NodeTracerProvider(options);
    node.register();
    provider = node;
  } else {
    provider = new BasicTracerProvider(options);
    trace.setGlobalTracerProvider(provider);
  }
}

afterEach(async () => {
  await provider?.shutdown();
  provider = undefined;
  trace.disable();
  context.disable();
  propagation.disable();
  process.env = { ...savedEnv };
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => {
  for (const path of folders) rmSync(path, { recursive: true, force: true });
});

async function model(respond: (request: FakeRequest) => FakeReply | Promise<FakeReply>): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond });
  servers.push(server);
  return server;
}

const PROGRAM = [
  "agent researcher:",
  "  model: sonnet",
  '  prompt: "You are a research assistant"',
  "",
  "parallel:",
  "  history = session: researcher",
  '    prompt: "Research the historical background"',
  "  future = session: researcher",
  '    prompt: "Research future trends"',
  "",
  'let summary = session "Write the summary with the lookup tool"',
  "  context: { history, future }",
  "",
  "if **the summary is complete**:",
  '  session "Publish the summary"',
  "",
].join("\n");

const lookup: ToolDefinition = {
  name: "lookup",
  description: "Looks a term up.",
  inputSchema: { type: "object", properties: { term: { type: "string" } }, required: ["term"] },
  run: (input) => `the definition of ${String(input["term"])}`,
};

/**
 * The history session's first request is overloaded (529, retried by the SDK), the summary calls
 * the lookup tool once, the judgment first answers in text (re-asked), then every answer is the
 * deterministic model's.
 */
function misbehaving(): (request: FakeRequest) => FakeReply {
  const fallback = deterministicModel();
  let overloaded = false;
  let looked = false;
  let judged = false;
  return (request) => {
    const asked = JSON.stringify(request.body?.messages ?? []);
    if (asked.includes("historical background") && !overloaded) {
      overloaded = true;
      return reply.error(529);
    }
    if (asked.includes("lookup tool") && !looked) {
      looked = true;
      return reply.toolUse([{ name: "lookup", input: { term: "tides" } }]);
    }
    if (request.body?.tool_choice !== undefined && asked.includes("summary is complete") && !judged) {
      judged = true;
      return reply.text("Probably, yes.");
    }
    return fallback(request);
  };
}

function options(server: FakeServer, extra: Partial<RunOptions> = {}): RunOptions {
  return { apiKey: TEST_API_KEY, baseURL: server.url, maxRetries: 1, cwd: folder(), tools: [lookup], ...extra };
}

const named = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] =>
  spans.filter((span) => span.name === name);
const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = named(spans, name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0]!;
};
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
const childrenOf = (spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] =>
  spans.filter((span) => parentOf(span) === idOf(parent));

describe("an application's provider gets the run's spans", () => {
  for (const kind of ["node", "basic"] as const) {
    it(`nests them as the program does (${kind === "node" ? "NodeTracerProvider" : "BasicTracerProvider, no context manager"})`, async () => {
      register(kind);
      const server = await model(misbehaving());
      const module = await load(PROGRAM);
      await module.run({}, options(server, { runId: "20260115-143052-a7b3c9" }));
      const spans = exporter.getFinishedSpans().filter((span) => span.instrumentationScope.name === "prosec");

      const run = one(spans, "run otel" + loaded);
      expect(parentOf(run)).toBeUndefined();
      expect(run.attributes).toMatchObject({ "prose.run_id": "20260115-143052-a7b3c9", "prose.status": "complete" });
      expect(run.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      for (const span of spans) expect(span.spanContext().traceId).toBe(run.spanContext().traceId);

      // parallel: one span, its two branches siblings under it, each with its session.
      const parallel = one(spans, "parallel");
      expect(parentOf(parallel)).toBe(idOf(run));
      expect(parallel.attributes).toMatchObject({ "prose.line": 5, "prose.branches": 2 });
      const branches = childrenOf(spans, parallel);
      expect(branches.map((span) => span.name).sort()).toEqual(["branch 0", "branch 1"]);
      const history = one(spans, "session history");
      const future = one(spans, "session future");
      expect(parentOf(history)).toBe(idOf(branches.find((span) => span.name === "branch 0")!));
      expect(parentOf(future)).toBe(idOf(branches.find((span) => span.name === "branch 1")!));
      expect(history.attributes).toMatchObject({
        "prose.kind": "session",
        "prose.agent": "researcher",
        "gen_ai.agent.name": "researcher",
        "prose.line": 6,
      });
      expect(String(history.attributes["prose.step_key"])).toMatch(/^\/parallel@5:1#0\/b0\/session@6:/);

      // The overloaded request was retried inside one turn: its span counts the resend and the 529.
      const historyTurn = childrenOf(spans, history);
      expect(historyTurn.map((span) => span.name)).toEqual(["chat claude-sonnet-5-5"]);
      expect(historyTurn[0]!.attributes["http.request.resend_count"]).toBe(1);
      expect(
        historyTurn[0]!.events.map((event) => [event.name, event.attributes?.["http.response.status_code"]]),
      ).toEqual([["prose.http_error", 529]]);

      // The summary: two turns and the tool call between them, all children of its step.
      const summary = one(spans, "session summary");
      expect(parentOf(summary)).toBe(idOf(run));
      const steps = childrenOf(spans, summary).sort(
        (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
      );
      expect(steps.map((span) => span.name)).toEqual([
        "chat claude-sonnet-5-5",
        "execute_tool lookup",
        "chat claude-sonnet-5-5",
      ]);
      const [firstTurn, tool] = steps;
      expect(firstTurn!.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.system": "anthropic",
        "gen_ai.request.model": "claude-sonnet-5-5",
        "gen_ai.response.model": "claude-sonnet-5-5",
        "gen_ai.response.finish_reasons": ["tool_use"],
        "prose.run_id": "20260115-143052-a7b3c9",
        "prose.step_key": summary.attributes["prose.step_key"],
      });
      expect(firstTurn!.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(firstTurn!.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
      expect(tool!.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.type": "function",
      });
      expect(tool!.status.code).not.toBe(SpanStatusCode.ERROR);

      // The judgment was asked twice: two turns under it, and the re-ask as an event.
      const judgment = one(spans, "judgment");
      expect(judgment.attributes).toMatchObject({ "prose.kind": "judgment", "prose.line": 14 });
      expect(childrenOf(spans, judgment).map((span) => span.name)).toEqual([
        "chat claude-sonnet-5-5",
        "chat claude-sonnet-5-5",
      ]);
      expect(judgment.events.map((event) => [event.name, event.attributes?.["prose.action"]])).toEqual([
        ["prose.unexpected_answer", "reask"],
      ]);
      expect(parentOf(one(spans, "session"))).toBe(idOf(run));

      // The SDK's own spans nest under the turn where a context manager carries the context.
      const sdk = exporter.getFinishedSpans().filter((span) => span.name === "anthropic.messages.create");
      if (kind === "node") {
        expect(sdk.length).toBe(spans.filter((span) => span.name.startsWith("chat ")).length);
        const turnIds = new Set(spans.filter((span) => span.name.startsWith("chat ")).map(idOf));
        for (const span of sdk) expect(turnIds.has(parentOf(span)!)).toBe(true);
      }
    });
  }

  it("records a failed step's error on its span and the run's, its message redacted", async () => {
    register("node");
    const server = await model((request) =>
      JSON.stringify(request.body?.messages).includes("Fail")
        ? reply.error(400, { message: `bad key ${TEST_API_KEY}` })
        : reply.text("ok"),
    );
    const module = await load('session "Fail here"\n');
    await expect(module.run({}, options(server))).rejects.toThrow();
    const spans = exporter.getFinishedSpans();
    const run = one(spans, `run otel${loaded}`);
    const session = one(spans, "session");
    const turn = one(spans, "chat claude-sonnet-5-5");
    for (const span of [run, session, turn]) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      const exception = span.events.find((event) => event.name === "exception");
      expect(String(exception?.attributes?.["exception.message"])).toContain("[redacted]");
    }
    expect(run.attributes["prose.status"]).toBe("failed");
    expect(JSON.stringify(spans.map((span) => [span.attributes, span.events, span.status]))).not.toContain(
      TEST_API_KEY,
    );
  });

  it("marks a race loser's steps cancelled (status and attributes), its finally's session and the block not", async () => {
    register("node");
    // The fast session answers once the slow one's request is in flight; the slow one never answers.
    let slowArrived: () => void = () => {};
    const slow = new Promise<void>((resolve) => (slowArrived = resolve));
    const server = await model(async (request) => {
      const text = lastUserText(request);
      if (text.includes("Slow")) {
        slowArrived();
        return reply.hang();
      }
      if (text.includes("Fast")) await slow;
      return reply.text(`R(${text.split("\n").at(-1)})`);
    });
    const module = await load(
      [
        'parallel ("first"):',
        '  quick = session "Fast answer"',
        "  careful = try:",
        '    session "Slow answer"',
        "  finally:",
        '    session "Clean up"',
        "",
      ].join("\n"),
    );
    await module.run({}, options(server, { concurrency: 4 }));
    const spans = exporter.getFinishedSpans();
    const sessionAt = (line: number): ReadableSpan =>
      spans.find((span) => span.name.startsWith("session") && span.attributes["prose.line"] === line)!;
    const [fast, slowSession, cleanUp] = [2, 4, 6].map(sessionAt);
    expect(slowSession!.status).toEqual({ code: SpanStatusCode.ERROR, message: "cancelled" });
    expect(slowSession!.attributes).toMatchObject({ "prose.status": "cancelled", "error.type": "cancelled" });
    expect(slowSession!.events.map((event) => event.name)).not.toContain("exception");
    // Its request in flight, aborted, and its branch are cancelled too.
    const [aborted] = childrenOf(spans, slowSession!);
    expect([aborted!.status.code, aborted!.attributes["prose.status"]]).toEqual([SpanStatusCode.ERROR, "cancelled"]);
    expect(one(spans, "branch 1").attributes["prose.status"]).toBe("cancelled");
    for (const span of [fast!, cleanUp!, one(spans, "parallel"), one(spans, `run otel${loaded}`)]) {
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.attributes["prose.status"]).not.toBe("cancelled");
    }
  });

  it("puts a called program's steps under the call's span, in the caller's run", async () => {
    register("basic");
    const server = await model(deterministicModel());
    const into = folder();
    await load('input topic: "Topic"\n\noutput summary = session "Summarise {topic}"\n', "helper", into);
    const main = await load('use "./helper.prose" as helper\n\nlet first = helper(topic: "moons")\n', "caller", into);
    await main.run({}, options(server, { runId: "20260115-143052-a7b3c9" }));
    const spans = exporter.getFinishedSpans();
    const run = one(spans, "run caller");
    const use = one(spans, "use helper");
    expect(parentOf(use)).toBe(idOf(run));
    expect(use.attributes).toMatchObject({
      "prose.kind": "use",
      "prose.line": 3,
      "prose.step_key": "/use:helper@3:13#0",
    });
    const summary = one(spans, "session summary");
    expect(parentOf(summary)).toBe(idOf(use));
    expect(summary.attributes).toMatchObject({
      "prose.run_id": "20260115-143052-a7b3c9",
      "prose.step_key": "/use:helper@3:13#0/session@3:18#0",
    });
    expect(named(spans, "run helper")).toEqual([]);
  });

  it("makes no span and changes nothing when the app registered no provider", async () => {
    const server = await model(deterministicModel());
    const module = await load('session "Say hello"\n');
    await module.run({}, options(server));
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});

describe("text on spans", () => {
  const secretProgram = ['input topic: "The topic"', 'session "Write about {topic} for the blog"', ""].join("\n");
  const echoing = (request: FakeRequest): FakeReply => reply.text(`I read: ${lastUserText(request)}`);
  const everything = (spans: readonly ReadableSpan[]): string =>
    JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events, span.status, span.links]));

  it("is off by default, even with the SDK's content mode set", async () => {
    process.env["ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE"] = "content";
    register("node");
    const server = await model(echoing);
    const module = await load(secretProgram);
    await module.run({ topic: `tides ${TEST_API_KEY}` }, options(server));
    const spans = exporter.getFinishedSpans();
    expect(named(spans, "anthropic.messages.create").length).toBe(1);
    const text = everything(spans);
    expect(text).not.toContain("for the blog");
    expect(text).not.toContain("I read");
    expect(text).not.toContain(TEST_API_KEY);
    expect(text).not.toContain("gen_ai.input.messages");
  });

  it("with PROSEC_OTEL_CONTENT=1 is on prosec's spans, redacted as the run folder is; never on the SDK's", async () => {
    process.env["ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE"] = "content";
    process.env["PROSEC_OTEL_CONTENT"] = "1";
    register("node");
    const server = await model(echoing);
    const module = await load(secretProgram);
    // An application's own client in the SDK's content mode is used without it.
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const client = new Anthropic({ apiKey: TEST_API_KEY, baseURL: server.url, maxRetries: 0 });
    expect(client.openTelemetry.traces).toMatchObject({ contentMode: "content" });
    for (const run of [options(server), options(server, { client })]) {
      exporter.reset();
      await module.run({ topic: `tides ${TEST_API_KEY}` }, run);
      const spans = exporter.getFinishedSpans();
      const turn = one(spans, "chat claude-sonnet-5-5");
      const input = JSON.parse(String(turn.attributes["gen_ai.input.messages"])) as Array<{
        role: string;
        parts: Array<{ type: string; content?: string }>;
      }>;
      expect(input[0]!.role).toBe("user");
      const asked = input[0]!.parts.map((part) => part.content ?? "").join("");
      expect(asked).toContain("Write about tides [redacted] for the blog");
      expect(String(turn.attributes["gen_ai.output.messages"])).toContain("I read:");
      expect(String(turn.attributes["gen_ai.system_instructions"])).toContain("You are");
      expect(String(one(spans, "session").attributes["prose.label"])).toContain("[redacted]");
      const sdk = one(spans, "anthropic.messages.create");
      expect(everything([sdk])).not.toContain("for the blog");
      expect(everything(spans)).not.toContain(TEST_API_KEY);
    }
  });
});

describe("a run that waited for input", () => {
  it("keeps its first root span in run.json; the resumed run's root span links to it", async () => {
    register("basic");
    const server = await model(deterministicModel());
    const module = await load(['input topic: "The topic"', 'session "Write about {topic}"', ""].join("\n"));
    const cwd = folder();
    const runDir = join(cwd, ".prose", "runs", "20260115-143052-a7b3c9");
    const base = { ...options(server), cwd, runDir, runId: "20260115-143052-a7b3c9" };
    await expect(module.run({}, base)).rejects.toThrow(/topic/);
    const first = one(exporter.getFinishedSpans(), `run otel${loaded}`);
    expect(first.attributes["prose.status"]).toBe("waiting");
    expect(first.status.code).not.toBe(SpanStatusCode.ERROR);
    const input = one(exporter.getFinishedSpans(), "input topic");
    expect(input.attributes).toMatchObject({ "prose.kind": "input", "prose.status": "waiting", "prose.line": 1 });
    expect(parentOf(input)).toBe(idOf(first));
    const manifest = JSON.parse(readFileSync(join(runDir, "run.json"), "utf8")) as { traceparent?: string };
    expect(manifest.traceparent).toBe(`00-${first.spanContext().traceId}-${first.spanContext().spanId}-01`);

    exporter.reset();
    await module.run({ topic: "tides" }, { ...base, resume: true });
    const resumed = one(exporter.getFinishedSpans(), `run otel${loaded}`);
    expect(resumed.attributes).toMatchObject({ "prose.resumed": true, "prose.status": "complete" });
    expect(resumed.links.map((link) => link.context)).toEqual([
      expect.objectContaining({ traceId: first.spanContext().traceId, spanId: first.spanContext().spanId }),
    ]);
    // Still the first process's root that later resumes link to.
    const after = JSON.parse(readFileSync(join(runDir, "run.json"), "utf8")) as { traceparent?: string };
    expect(after.traceparent).toBe(manifest.traceparent);
    expect(named(exporter.getFinishedSpans(), "input")).toHaveLength(0);
  });
});

describe("a run whose executions share a traceparent (a DBOS run moved between workers)", () => {
  it("puts every execution's root span in the one trace the run's id names", async () => {
    register("node");
    const server = await model(deterministicModel());
    const module = await load('session "Say hello"\n');
    const parent = runTraceparent("20260115-143052-a7b3c9");
    expect(runTraceparent("20260115-143052-a7b3c9")).toBe(parent);
    expect(runTraceparent("20260115-143052-ffffff")).not.toBe(parent);
    const [, traceId, spanId] = parent.split("-");
    for (let execution = 0; execution < 2; execution++)
      await module.run({}, { ...options(server), runId: "20260115-143052-a7b3c9", traceParent: parent });
    const roots = named(exporter.getFinishedSpans(), `run otel${loaded}`);
    expect(roots).toHaveLength(2);
    for (const root of roots) {
      expect(root.spanContext().traceId).toBe(traceId);
      expect(root.parentSpanContext?.spanId).toBe(spanId);
    }
    expect(roots[0]!.spanContext().spanId).not.toBe(roots[1]!.spanContext().spanId);
    const traces = new Set(exporter.getFinishedSpans().map((span) => span.spanContext().traceId));
    expect([...traces]).toEqual([traceId]);
  });
});
