/**
 * A span's context as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`): how a run keeps its
 * first root span in its state, so that a resumed run links to it (docs/production.md, "Tracing").
 * Written here rather than through a propagator: the application may have registered none.
 */
import { isSpanContextValid, TraceFlags, type SpanContext } from "@opentelemetry/api";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function formatTraceparent(context: SpanContext): string | undefined {
  if (!isSpanContextValid(context)) return undefined;
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, "0");
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/** The span context a `traceparent` names; undefined for anything else (a damaged or foreign value). */
export function parseTraceparent(value: unknown): SpanContext | undefined {
  if (typeof value !== "string") return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const context: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: parseInt(match[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(context) ? context : undefined;
}
