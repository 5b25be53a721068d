/**
 * A DBOS run whose worker dies links its traces (docs/production.md, "Tracing"): the first
 * execution records its root span's traceparent as the run's first checkpoint; the execution that
 * recovers the run (the worker started again) starts a root span of its own that links to it.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  environment,
  fakeModel,
  folder,
  killed,
  result,
  startWorker,
  stopChildren,
  stopped,
  submit,
  waitFor,
} from "../support/dbos.js";
import { reply } from "../support/fake-anthropic.js";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp-receiver.js";
import { freshDatabase } from "../support/postgres.js";

const PROGRAM = `input topic: "What to write about"

let first = session "Write the first part on {topic}"
output second = session "Write the second part on {topic}"
  context: first
`;

let collector: OtlpReceiver | undefined;
afterEach(async () => {
  await stopChildren();
  await collector?.close();
  collector = undefined;
});

describe("a traced DBOS run recovered after its worker died", () => {
  it("starts a root span that links to the first execution's", { timeout: 120_000 }, async () => {
    collector = await startOtlpReceiver();
    let killing = true;
    const server = await fakeModel({
      respond: (request) => {
        const asked = JSON.stringify(request.body?.messages ?? []);
        // The second session hangs until its worker is killed; asked again after, it answers.
        if (asked.includes("second part") && killing) return reply.hang();
        return reply.text(asked.includes("second part") ? "the second part" : "the first part");
      },
    });
    const database = await freshDatabase("tracing");
    const cwd = folder(PROGRAM);
    const env = {
      ...environment(database, server),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: "50",
    };
    const first = await startWorker("w1", cwd, env, { adoptAfterSeconds: 600 });
    await submit(cwd, env, "tides", "run-tides");
    // The first session's span is exported (a finished span goes out within the batch delay) before the kill.
    await waitFor(
      async () => collector!.spans.some((span) => span.name === "session first"),
      "the first execution's finished session span",
    );
    await waitFor(
      async () => server.requests.some((request) => JSON.stringify(request.body?.messages).includes("second part")),
      "the second session under way",
    );
    await killed(first);
    killing = false;

    // The same worker id recovers its own run at start.
    const again = await startWorker("w1", cwd, env, { adoptAfterSeconds: 600 });
    expect(await result(cwd, env, "run-tides")).toEqual({ second: "the second part" });
    expect(await stopped(again)).toBe(0);

    const spans = collector.spans.filter((span) => span.scope === "prosec");
    const before = spans.find((span) => span.name === "session first")!;
    const roots = spans.filter((span) => span.name === "run report");
    // The killed execution's root span never ended; the recovering one's did, and links to it.
    expect(roots).toHaveLength(1);
    const [root] = roots;
    expect(root!.attributes).toMatchObject({
      "prose.run_id": "run-tides",
      "prose.resumed": true,
      "prose.status": "complete",
    });
    expect(root!.links).toEqual([
      expect.objectContaining({
        traceId: before.traceId,
        spanId: before.parentSpanId,
        attributes: { "prose.resumed": true },
      }),
    ]);
    // The recovered execution replays the first session (no span) and runs the second under its own root.
    expect(spans.filter((span) => span.name === "session first")).toHaveLength(1);
    const second = spans.find((span) => span.name === "session second" && span.traceId === root!.traceId);
    expect(second?.parentSpanId).toBe(root!.spanId);
  });
});
