/**
 * A span's context as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`): how a run keeps its
 * first root span in its state, so that a resumed run links to it (docs/production.md, "Tracing").
 * Written here rather than through a propagator: the application may have registered none.
 */
import { createHash } from "node:crypto";
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

/**
 * The `traceparent` every execution of a DBOS run continues: derived from the run's id alone, so the
 * worker that starts a run, one that adopts it after a crash and one that resumes it by id put their
 * spans in one trace, with no step recorded for it. Its span is never exported itself: backends show
 * the executions' root spans under a parent they do not have.
 */
export function runTraceparent(runId: string): string {
  const digest = createHash("sha256").update(`prosec run ${runId}`).digest("hex");
  return `00-${digest.slice(0, 32)}-${digest.slice(32, 48)}-01`;
}
