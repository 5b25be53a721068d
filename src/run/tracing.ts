/**
 * Tracing for `prosec run` and `prosec worker` (docs/production.md, "Tracing"): when
 * `--otel URL`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set, a
 * NodeTracerProvider exporting OTLP over HTTP (JSON) is registered, which the runtime's spans
 * (runtime/telemetry/) and the Anthropic SDK's then reach. The SDK packages are imported only then:
 * every other command, and every run without an endpoint, loads none of them.
 *
 * The standard `OTEL_*` variables apply as the OpenTelemetry packages read them (headers, timeout,
 * sampler, batch sizes, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`); `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` turn tracing off; a `TRACEPARENT` in the environment (a CI job's span)
 * becomes the parent of the run's root span.
 */
import { maskedUrl } from "../masked-url.js";
import { compilerVersion } from "../version.js";

/** A started tracer provider: `end` flushes every span (each exit path of the command awaits it). */
export interface Tracing {
  /** Runs the command's work under the `TRACEPARENT` the environment gave, if any. */
  within<T>(work: () => Promise<T>): Promise<T>;
  end(): Promise<void>;
}

const OFF: Tracing = { within: (work) => work(), end: async () => {} };

/** How long the last export may take at exit before the command ends anyway. */
const FLUSH_LIMIT_MS = 10_000;

let started: Tracing = OFF;

/** The traces endpoint to export to, if tracing is asked for: `--otel`, else the standard variables. */
export function tracesEndpoint(otel: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (env["OTEL_SDK_DISABLED"]?.trim().toLowerCase() === "true") return undefined;
  if (env["OTEL_TRACES_EXPORTER"]?.trim().toLowerCase() === "none") return undefined;
  if (otel !== undefined && otel !== "") return withTracesPath(otel);
  const signal = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]?.trim();
  if (signal) return signal;
  const base = env["OTEL_EXPORTER_OTLP_ENDPOINT"]?.trim();
  return base ? withTracesPath(base) : undefined;
}

/** A collector's base URL with the traces path appended to its path (its query kept); text that is no URL as it is. */
function withTracesPath(base: string): string {
  if (!URL.canParse(base)) return base;
  const url = new URL(base);
  if (!url.pathname.endsWith("/v1/traces")) url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/traces`;
  return url.toString();
}

/**
 * Starts tracing when an endpoint is set (else does nothing); `warn` says what is not as asked.
 * The provider is global, as an application's would be: one per process.
 */
export async function startTracing(
  otel: string | undefined,
  warn: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Tracing> {
  const url = tracesEndpoint(otel, env);
  if (url === undefined) return OFF;
  // The value is not echoed when it is not a URL: it could be a secret pasted in the wrong place.
  const problem = !URL.canParse(url)
    ? "the endpoint is not a URL"
    : ["http:", "https:"].includes(new URL(url).protocol)
      ? undefined
      : `${maskedUrl(url)} is not an http:// or https:// URL`;
  if (problem !== undefined) {
    warn(`prosec: tracing is off: ${problem} (--otel, OTEL_EXPORTER_OTLP_ENDPOINT)`);
    return OFF;
  }
  const protocol = (env["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] ?? env["OTEL_EXPORTER_OTLP_PROTOCOL"])?.trim();
  if (protocol !== undefined && protocol !== "" && protocol !== "http/json")
    warn(`prosec: spans are sent as OTLP/HTTP JSON (http/json), not ${protocol}; every OTLP/HTTP collector takes it`);
  const [api, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resources] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  // The service is prosec unless the environment names it (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win).
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ "service.name": "prosec", "service.version": compilerVersion }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register();
  // An export that fails (the collector is away) is said once, not once per batch.
  let said = false;
  const sayOnce = (message: string): void => {
    if (said) return;
    said = true;
    warn(`prosec: spans could not be sent to ${maskedUrl(url)}: ${message}`);
  };
  const quiet = (): void => {};
  api.diag.setLogger(
    { error: sayOnce, warn: quiet, info: quiet, debug: quiet, verbose: quiet },
    { logLevel: api.DiagLogLevel.ERROR, suppressOverrideMessage: true },
  );
  const parent = api.propagation.extract(api.ROOT_CONTEXT, {
    ...(env["TRACEPARENT"] === undefined ? {} : { traceparent: env["TRACEPARENT"] }),
    ...(env["TRACESTATE"] === undefined ? {} : { tracestate: env["TRACESTATE"] }),
  });
  let ended: Promise<void> | undefined;
  started = {
    within: (work) => api.context.with(parent, work),
    end: () =>
      (ended ??= Promise.race([
        provider.shutdown().catch((error: unknown) => sayOnce(error instanceof Error ? error.message : String(error))),
        new Promise<void>((resolve) => setTimeout(resolve, FLUSH_LIMIT_MS).unref()),
      ])),
  };
  return started;
}

/** Flushes the spans of the tracing this process started, if any: for a path that ends the process itself. */
export function endTracing(): Promise<void> {
  return started.end();
}
