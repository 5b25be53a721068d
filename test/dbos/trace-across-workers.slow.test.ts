/**
 * A DBOS run traced by every worker that works on it is one trace (docs/production.md, "Tracing"):
 * the worker that starts the run is stopped (SIGTERM, its spans flushed) during the second session,
 * a worker started again under its id finishes the run, and every span both sent to a local OTLP
 * receiver carries the trace id derived from the run's id, with each execution's root span under it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runTraceparent } from "../../runtime/telemetry/traceparent.js";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  prosec,
  startWorker,
  stopChildren,
  stopped,
  waitFor,
  type RunningWorker,
} from "../support/dbos.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp-receiver.js";
import { freshDatabase } from "../support/postgres.js";
import { temporaryFolder } from "../support/temp.js";

const PROGRAM = `let outline = session "Outline a note on tides"

output note = session "Write the note from the outline"
  context: outline
`;

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await stopChildren();
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

describe("a DBOS run moved between workers", () => {
  it("is one trace: both executions' spans carry the trace id the run's id names", { timeout: 120_000 }, async () => {
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const answer = deterministicModel();
    let writing = 0;
    const server = await fakeModel({
      respond: (request) => {
        if (JSON.stringify(request.body?.messages ?? []).includes("Write the note")) writing++;
        return answer(request);
      },
      // The second session's first request is slow, so the first worker is stopped while it is in flight.
      latencyMs: 400,
    });
    const database = await freshDatabase("trace");
    const env = { ...environment(database, server), OTEL_BSP_SCHEDULE_DELAY: "100" };
    const cwd = temporaryFolder("prosec-dbos-trace-");
    writeFileSync(join(cwd, "tides.prose"), PROGRAM);
    const work = (): Promise<RunningWorker> =>
      startWorker("w1", cwd, env, { file: "tides.prose", concurrency: 1, extra: ["--otel", receiver.url] });

    const first = await work();
    const submitted = await prosec(["submit", "tides.prose", "--id", "run-tides"], cwd, env);
    expect([submitted.code, submitted.stderr]).toEqual([EXIT.ok, ""]);
    await waitFor(() => writing >= 1, "the second session's request");
    expect(await stopped(first)).toBe(EXIT.ok);

    const second = await work();
    const result = await prosec(["result", "run-tides", "--json", "--timeout", "60"], cwd, env);
    expect([result.code, result.stderr]).toEqual([EXIT.ok, ""]);
    expect(await stopped(second)).toBe(EXIT.ok);

    const [, traceId, parentSpanId] = runTraceparent("run-tides").split("-");
    const roots = receiver.spans.filter((span) => span.name === "run tides");
    expect(roots.length).toBe(2);
    for (const root of roots) {
      expect(root.attributes["prose.run_id"]).toBe("run-tides");
      expect(root.traceId).toBe(traceId);
      expect(root.parentSpanId).toBe(parentSpanId);
    }
    expect(new Set(roots.map((root) => root.spanId)).size).toBe(2);
    const prosecSpans = receiver.spans.filter((span) => span.scope === "prosec");
    expect(prosecSpans.filter((span) => span.name.startsWith("session")).length).toBeGreaterThanOrEqual(3);
    expect(new Set(prosecSpans.map((span) => span.traceId))).toEqual(new Set([traceId]));
  });
});
