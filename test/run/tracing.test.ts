/**
 * When `prosec run` and `prosec worker` trace (src/run/tracing.ts), and the `traceparent` a run keeps
 * in its state (runtime/telemetry/traceparent.ts).
 */
import { context, diag, propagation, trace, TraceFlags } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { startTracing, tracesEndpoint } from "../../src/run/tracing.js";
import { formatTraceparent, parseTraceparent } from "../../runtime/telemetry/traceparent.js";

describe("the traces endpoint", () => {
  it("is --otel's URL (with /v1/traces added), else the signal's variable, else the base variable's", () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318/",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://signal:4318/custom",
    };
    expect(tracesEndpoint("http://flag:4318", env)).toBe("http://flag:4318/v1/traces");
    expect(tracesEndpoint("http://flag:4318/v1/traces", env)).toBe("http://flag:4318/v1/traces");
    expect(tracesEndpoint(undefined, env)).toBe("http://signal:4318/custom");
    expect(tracesEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318/" })).toBe(
      "http://base:4318/v1/traces",
    );
    expect(tracesEndpoint(undefined, {})).toBeUndefined();
    expect(tracesEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBeUndefined();
  });

  it("is none when the standard variables turn tracing off", () => {
    expect(tracesEndpoint("http://flag:4318", { OTEL_SDK_DISABLED: "true" })).toBeUndefined();
    expect(
      tracesEndpoint(undefined, { OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:1" }),
    ).toBeUndefined();
  });

  it("starts nothing without one, and refuses a value that is not a URL with a warning", async () => {
    const warnings: string[] = [];
    const off = await startTracing(undefined, (line) => warnings.push(line), {});
    expect(await off.within(async () => 42)).toBe(42);
    await off.end();
    const bad = await startTracing("not a url", (line) => warnings.push(line), {});
    await bad.end();
    const ftp = await startTracing("ftp://user:hunter2pass@collector/", (line) => warnings.push(line), {});
    await ftp.end();
    expect(warnings).toEqual([
      "prosec: tracing is off: the endpoint is not a URL (--otel, OTEL_EXPORTER_OTLP_ENDPOINT)",
      "prosec: tracing is off: ftp://user:***@collector/v1/traces is not an http:// or https:// URL (--otel, OTEL_EXPORTER_OTLP_ENDPOINT)",
    ]);
  });

  it("appends /v1/traces to the endpoint's path, keeping its query", () => {
    expect(tracesEndpoint("http://c:4318/base/?token=abc", {})).toBe("http://c:4318/base/v1/traces?token=abc");
    expect(tracesEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "https://c/?k=v#f" })).toBe(
      "https://c/v1/traces?k=v#f",
    );
    expect(tracesEndpoint("http://c/v1/traces?token=abc", {})).toBe("http://c/v1/traces?token=abc");
  });
});

describe("started tracing", () => {
  it("registers a provider with a context manager, runs the work under TRACEPARENT, warns of a protocol it does not send", async () => {
    const warnings: string[] = [];
    const tracing = await startTracing(undefined, (line) => warnings.push(line), {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      TRACEPARENT: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    try {
      expect(warnings).toEqual([expect.stringContaining("OTLP/HTTP JSON (http/json), not http/protobuf")]);
      const parent = await tracing.within(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return trace.getSpanContext(context.active());
      });
      expect(parent).toMatchObject({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" });
      expect(trace.getTracer("test").startSpan("probe").isRecording()).toBe(true);
    } finally {
      await tracing.end();
      trace.disable();
      context.disable();
      propagation.disable();
      diag.disable();
    }
  });
});

describe("a run's traceparent", () => {
  it("round-trips a sampled span context and refuses anything else", () => {
    const context = {
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: TraceFlags.SAMPLED,
    };
    const written = formatTraceparent(context);
    expect(written).toBe("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    expect(parseTraceparent(written)).toEqual({ ...context, isRemote: true });
    for (const damaged of [
      undefined,
      42,
      "",
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
      "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
    ])
      expect(parseTraceparent(damaged)).toBeUndefined();
    expect(formatTraceparent({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 })).toBeUndefined();
  });
});
