/**
 * A local OTLP/HTTP trace receiver on 127.0.0.1 for tests of tracing (docs/production.md,
 * "Tracing"): it takes `POST /v1/traces` as OTLP/JSON, the encoding prosec's exporter sends, and
 * keeps every span with its attributes, events and links flattened to plain values.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: Record<string, unknown>;
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes: Record<string, unknown> }>;
  readonly links: ReadonlyArray<{
    readonly traceId: string;
    readonly spanId: string;
    readonly attributes: Record<string, unknown>;
  }>;
  readonly status?: { readonly code?: number; readonly message?: string };
  /** The instrumentation scope: `prosec`, or the Anthropic SDK's. */
  readonly scope: string;
  readonly resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** The content type of every request received. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: string | number;
  readonly boolValue?: boolean;
  readonly doubleValue?: number;
  readonly arrayValue?: { readonly values?: readonly OtlpValue[] };
}
type OtlpAttributes = ReadonlyArray<{ readonly key: string; readonly value: OtlpValue }> | undefined;

interface OtlpSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes?: OtlpAttributes;
  readonly events?: ReadonlyArray<{ readonly name: string; readonly attributes?: OtlpAttributes }>;
  readonly links?: ReadonlyArray<{
    readonly traceId: string;
    readonly spanId: string;
    readonly attributes?: OtlpAttributes;
  }>;
  readonly status?: { readonly code?: number; readonly message?: string };
}

interface OtlpTraces {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource?: { readonly attributes?: OtlpAttributes };
    readonly scopeSpans: ReadonlyArray<{
      readonly scope?: { readonly name?: string };
      readonly spans: readonly OtlpSpan[];
    }>;
  }>;
}

function valueOf(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

const flat = (attributes: OtlpAttributes): Record<string, unknown> =>
  Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, valueOf(value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      contentTypes.push(String(request.headers["content-type"]));
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpTraces;
      for (const { resource, scopeSpans } of body.resourceSpans)
        for (const { scope, spans: sent } of scopeSpans)
          for (const span of sent)
            spans.push({
              name: span.name,
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              attributes: flat(span.attributes),
              events: (span.events ?? []).map((event) => ({ name: event.name, attributes: flat(event.attributes) })),
              links: (span.links ?? []).map((link) => ({
                traceId: link.traceId,
                spanId: link.spanId,
                attributes: flat(link.attributes),
              })),
              ...(span.status === undefined ? {} : { status: span.status }),
              scope: scope?.name ?? "",
              resource: flat(resource?.attributes),
            });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
