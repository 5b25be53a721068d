/**
 * `prosec run` with tracing on (docs/production.md, "Tracing"): a local OTLP/HTTP receiver (JSON, as
 * the exporter sends it) collects the spans of a run with parallel branches, a retried request and a
 * tool call; the tree and the attributes are checked, and the spans arrive on a normal exit and on
 * SIGTERM. No prompt text reaches the receiver, even with the SDK's content mode set.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec, type CliResult } from "../support/cli.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { deterministicModel } from "../support/deterministic-model.js";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";

const closers: Array<() => Promise<void>> = [];
const folders: string[] = [];
beforeAll(() => requireBuiltRuntime());
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(() => {
  for (const path of folders) rmSync(path, { recursive: true, force: true });
});

async function receiver(): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver();
  closers.push(() => started.close());
  return started;
}

async function model(respond: (request: FakeRequest) => FakeReply): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond });
  closers.push(() => server.close());
  return server;
}

function project(program: string): string {
  const cwd = temporaryFolder("prosec-cli-otel-");
  folders.push(cwd);
  writeFileSync(join(cwd, "notes.md"), "Tides rise twice a day.\n");
  writeFileSync(join(cwd, "traced.prose"), program);
  return cwd;
}

const PROGRAM = `agent reader:
  model: sonnet
  prompt: "You read notes"
  permissions:
    read: ["*.md"]

parallel:
  a = session "Research the first secret topic"
  b = session "Research the second secret topic"

let notes = session: reader
  prompt: "Read notes.md for the secret summary"
  context: { a, b }
`;

const env = (server: FakeServer, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ANTHROPIC_API_KEY: TEST_API_KEY,
  ANTHROPIC_BASE_URL: server.url,
  DBOS_SYSTEM_DATABASE_URL: "",
  OTEL_EXPORTER_OTLP_ENDPOINT: "",
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  ...extra,
});

const byName = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan[] =>
  spans.filter((span) => span.name === name);
const children = (spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] =>
  spans.filter((span) => span.parentSpanId === parent.spanId);

describe("prosec run with tracing", () => {
  it("sends the run's span tree to the OTLP/HTTP collector of OTEL_EXPORTER_OTLP_ENDPOINT when it exits", async () => {
    const collector = await receiver();
    const fallback = deterministicModel();
    let overloaded = false;
    let read = false;
    const server = await model((request) => {
      const asked = JSON.stringify(request.body?.messages ?? []);
      if (asked.includes("first secret topic") && !overloaded) {
        overloaded = true;
        return reply.error(529);
      }
      if (asked.includes("notes.md") && !read) {
        read = true;
        return reply.toolUse([{ name: "read_file", input: { path: "notes.md" } }]);
      }
      return fallback(request);
    });
    const cwd = project(PROGRAM);
    const result: CliResult = await startProsec(
      ["run", "traced.prose"],
      cwd,
      env(server, {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: "tides-service",
        ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE: "content",
      }),
    ).exit;
    expect(result.stderr).not.toContain("could not be sent");
    expect(result.status).toBe(EXIT.ok);
    const spans = collector.spans;
    expect(collector.contentTypes.every((type) => type.startsWith("application/json"))).toBe(true);

    const prose = spans.filter((span) => span.scope === "prosec");
    const [run] = byName(prose, "run traced");
    expect(run).toBeDefined();
    expect(run!.parentSpanId).toBeUndefined();
    expect(run!.resource["service.name"]).toBe("tides-service");
    expect(run!.attributes).toMatchObject({ "prose.status": "complete" });
    expect(String(run!.attributes["prose.run_id"])).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(spans.filter((span) => span.traceId !== run!.traceId).map((span) => span.name)).toEqual([]);

    const [parallel] = byName(prose, "parallel");
    expect(parallel!.parentSpanId).toBe(run!.spanId);
    const branches = children(prose, parallel!);
    expect(branches.map((span) => span.name).sort()).toEqual(["branch 0", "branch 1"]);
    const sessionA = byName(prose, "session a")[0]!;
    const turnA = children(prose, sessionA);
    expect(branches.map((span) => span.spanId)).toContain(sessionA.parentSpanId);
    expect(turnA.map((span) => span.name)).toEqual(["chat claude-sonnet-5-5"]);
    expect(turnA[0]!.attributes["http.request.resend_count"]).toBe(1);
    expect(turnA[0]!.events.map((event) => event.attributes["http.response.status_code"])).toEqual([529]);

    const notes = byName(prose, "session notes")[0]!;
    expect(notes.attributes).toMatchObject({ "prose.agent": "reader", "prose.line": 11 });
    const [tool] = byName(prose, "execute_tool read_file");
    expect(tool!.parentSpanId).toBe(notes.spanId);
    expect(tool!.attributes).toMatchObject({
      "gen_ai.tool.name": "read_file",
      "prose.step_key": notes.attributes["prose.step_key"],
    });
    const turns = children(prose, notes).filter((span) => span.name.startsWith("chat "));
    expect(turns).toHaveLength(2);
    expect(turns.map((span) => span.attributes["gen_ai.response.finish_reasons"]).sort()).toEqual([
      ["end_turn"],
      ["tool_use"],
    ]);

    // The SDK's own spans nest under prosec's turns (the CLI registers a context manager).
    const sdk = spans.filter((span) => span.name === "anthropic.messages.create");
    const turnIds = new Set(prose.filter((span) => span.name.startsWith("chat ")).map((span) => span.spanId));
    expect(sdk.length).toBe(turnIds.size);
    for (const span of sdk) expect(turnIds.has(span.parentSpanId!)).toBe(true);

    // No prompt or answer text, nor the key, left the process.
    const sent = JSON.stringify(spans);
    expect(sent).not.toContain("secret topic");
    expect(sent).not.toContain("Tides rise");
    expect(sent).not.toContain(TEST_API_KEY);
  });

  it("names a collector it cannot reach without its password or token", async () => {
    const server = await model(deterministicModel());
    const cwd = project('let a = session "Say hi"\n');
    const result = await startProsec(
      ["run", "traced.prose", "--otel", "http://user:hunter2pass@127.0.0.1:9/?token=abc123secret"],
      cwd,
      env(server),
    ).exit;
    expect(result.status).toBe(EXIT.ok);
    expect(result.stderr).toContain("spans could not be sent to http://user:***@127.0.0.1:9/v1/traces?token=***");
    expect(result.stderr).not.toMatch(/hunter2pass|abc123secret/);
  });

  it("flushes the spans of a run stopped by SIGTERM (--otel)", async () => {
    const collector = await receiver();
    let arrived!: () => void;
    const waiting = new Promise<void>((resolve) => (arrived = resolve));
    const server = await model(() => {
      arrived();
      return reply.hang();
    });
    const cwd = project('let draft = session "Write a long essay"\n');
    // A CI job's span, given as the environment carries it: the run's root span is its child.
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const started = startProsec(
      ["run", "traced.prose", "--otel", collector.url],
      cwd,
      env(server, { TRACEPARENT: traceparent }),
    );
    await waiting;
    started.child.kill("SIGTERM");
    const result = await started.exit;
    expect(result.status).toBe(EXIT.interrupted);
    const prose = collector.spans.filter((span) => span.scope === "prosec");
    const [run] = byName(prose, "run traced");
    expect(run!.attributes["prose.status"]).toBe("interrupted");
    expect([run!.traceId, run!.parentSpanId]).toEqual(["0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"]);
    expect(run!.status?.code).toBe(2);
    const [session] = byName(prose, "session draft");
    expect(session!.parentSpanId).toBe(run!.spanId);
    expect(byName(prose, "chat claude-sonnet-5-5")[0]!.parentSpanId).toBe(session!.spanId);
  });
});
