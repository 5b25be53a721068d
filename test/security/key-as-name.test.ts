/**
 * Issue 38, class 9: the API key as a name. A model that calls a tool named by the key, with the key
 * as a property name of its input and as a block type, reaches neither the run folder (journal,
 * `trace/steps.jsonl`) nor, with `PROSEC_OTEL_CONTENT=1`, the spans an application's provider gets.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { context, propagation, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst, TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

let model: FakeServer | undefined;
let provider: BasicTracerProvider | undefined;
const savedContent = process.env["PROSEC_OTEL_CONTENT"];

afterEach(async () => {
  await model?.close();
  model = undefined;
  await provider?.shutdown();
  provider = undefined;
  trace.disable();
  context.disable();
  propagation.disable();
  if (savedContent === undefined) delete process.env["PROSEC_OTEL_CONTENT"];
  else process.env["PROSEC_OTEL_CONTENT"] = savedContent;
});

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("the API key as a name", () => {
  it("a tool called by the key, with the key as a property name, is redacted on disk and in spans", async () => {
    process.env["PROSEC_OTEL_CONTENT"] = "1";
    const exporter = new InMemorySpanExporter();
    provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    model = await startFakeAnthropic({
      script: [
        reply.toolUse([
          { name: TEST_API_KEY, input: { [TEST_API_KEY]: "value" } },
          { name: "read_file", input: { path: "x.txt", [TEST_API_KEY]: 1 } },
        ]),
        reply.text("done"),
      ],
    });
    const cwd = temporaryFolder("prosec-key-name-");
    const runDir = join(cwd, ".prose/runs/key");
    const { result } = await runAgainst(
      model,
      (rt) => rt.session({ at: at(1), prompt: "Go", permissions: { bash: "deny" } }),
      { cwd, runDir },
    );
    expect(result).toBe("done");
    const files = filesUnder(runDir);
    expect(files.some((file) => file.endsWith("steps.jsonl"))).toBe(true);
    const written = files.map((file) => readFileSync(file, "utf8")).join("\n");
    expect(written).toContain("[redacted]");
    expect(written).not.toContain(TEST_API_KEY);
    const spans = JSON.stringify(
      exporter
        .getFinishedSpans()
        .map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })),
    );
    expect(spans).toContain("execute_tool [redacted]");
    expect(spans).not.toContain(TEST_API_KEY);
  });
});
