/**
 * A cancelled branch's `finally` on DBOS (DIALECT.md, "Parallel: races, failures, cancellation"): the
 * loser of a decided race runs its `finally` as durable steps of its branch workflow, and a worker
 * killed inside that `finally` is restarted and finishes it with the same winner, the same branch
 * cancelled and no finished session asked again. The loser's aborted request, which reported no usage,
 * counts in the run's cost at the estimate it was charged, kept with its turn's checkpoint.
 */
import { afterEach, describe, expect, it } from "vitest";
import { estimateCost } from "../../src/run/cost.js";
import {
  environment,
  fakeModel,
  folder,
  killed,
  prosec,
  result,
  startWorker,
  stopChildren,
  stopped,
  submit,
  withDatabase,
} from "../support/dbos.js";
import { reply, type FakeReply, type FakeRequest } from "../support/fake-anthropic.js";
import { firstUserText } from "../support/requests.js";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp-receiver.js";
import { freshDatabase } from "../support/postgres.js";

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await stopChildren();
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

const RACE = `input topic: "What to write about"
parallel ("first"):
  quick = session "Fast answer on {topic}"
  careful = try:
    session "Slow answer on {topic}"
  finally:
    session "Clean up after {topic}"
output report = session "Report: {quick}"
  context: []
`;

/** A session's task line. */
function task(request: FakeRequest): string {
  return firstUserText(request).split("\n")[0]!;
}

describe("a cancelled branch's finally on DBOS", () => {
  it(
    "runs as durable steps; a worker killed inside it is restarted and finishes it with the same winner, nothing paid twice",
    { timeout: 120_000 },
    async () => {
      let slowArrived: () => void = () => {};
      const slow = new Promise<void>((resolve) => (slowArrived = resolve));
      let cleanUpArrived: () => void = () => {};
      const cleanUp = new Promise<void>((resolve) => (cleanUpArrived = resolve));
      let cleanUps = 0;
      const respond = async (request: FakeRequest): Promise<FakeReply> => {
        const text = task(request);
        if (text.startsWith("Slow answer")) {
          slowArrived();
          return reply.hang();
        }
        // The race is decided while the slow request is in flight.
        if (text.startsWith("Fast answer")) await slow;
        // The first clean-up never answers: the worker is killed inside the finally.
        if (text.startsWith("Clean up") && cleanUps++ === 0) {
          cleanUpArrived();
          return reply.hang();
        }
        return reply.text(`R(${text})`);
      };
      const server = await fakeModel({ respond });
      const database = await freshDatabase("cancelled_finally");
      const cwd = folder(RACE);
      const receiver = await startOtlpReceiver();
      receivers.push(receiver);
      const env = { ...environment(database, server), OTEL_BSP_SCHEDULE_DELAY: "100" };
      const work = () => startWorker("w1", cwd, env, { extra: ["--otel", receiver.url] });
      const first = await work();
      await submit(cwd, env, "tides", "run-race");
      await cleanUp;
      await killed(first);
      const killedAt = server.requests.length;
      const second = await work();
      const outputs = (await result(cwd, env, "run-race")) as { report: string };
      expect(outputs.report).toBe("R(Report: R(Fast answer on tides))");
      const asked = server.requests.map(task);
      // Each finished session was asked once; the clean-up cut off by the kill is asked again, once.
      expect(asked.filter((text) => text.startsWith("Fast answer"))).toHaveLength(1);
      expect(asked.filter((text) => text.startsWith("Slow answer"))).toHaveLength(1);
      expect(asked.filter((text) => text.startsWith("Clean up"))).toHaveLength(2);
      expect(
        asked.slice(killedAt).filter((text) => !text.startsWith("Clean up") && !text.startsWith("Report")),
      ).toEqual([]);
      // The loser's branch workflow checkpointed its aborted turn, then its finally's session: durable steps.
      const loserSteps = await withDatabase(database, async (client) =>
        (
          await client.query<{ function_name: string }>(
            "SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id",
            ["run-race/parallel@2:1#0/b1"],
          )
        ).rows.map((row) => row.function_name),
      );
      expect(loserSteps).toEqual([
        "/parallel@2:1#0/b1/session@5:5#0 turn",
        "/parallel@2:1#0/b1/session@7:5#0 turn",
        "/parallel@2:1#0/b1/session@7:5#0",
      ]);
      const status = JSON.parse((await prosec(["status", "run-race", "--json"], cwd, env)).stdout) as {
        status: string;
      };
      expect(status.status).toBe("SUCCESS");

      // The loser's aborted request reported no usage: its turn's checkpoint keeps the estimate it was
      // charged, and the run's cost is what the answered requests used plus that estimate.
      const abortedTurn = await withDatabase(
        database,
        async (client) =>
          (
            await client.query<{ error: string | null }>(
              "SELECT error FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name = $2",
              ["run-race/parallel@2:1#0/b1", "/parallel@2:1#0/b1/session@5:5#0 turn"],
            )
          ).rows[0]?.error,
      );
      const estimate = Number(/"prosecAbortedEstimate":\s*([0-9.e+-]+)/.exec(abortedTurn ?? "")?.[1]);
      expect(estimate).toBeGreaterThan(0);
      const answered = estimateCost(
        server.requests.flatMap((request) =>
          request.usage === undefined
            ? []
            : [
                {
                  model: request.body!.model,
                  inputTokens: request.usage.input_tokens,
                  outputTokens: request.usage.output_tokens,
                  cacheWriteTokens: request.usage.cache_creation_input_tokens ?? 0,
                  cacheReadTokens: request.usage.cache_read_input_tokens ?? 0,
                },
              ],
        ),
      )!;
      const listed = JSON.parse((await prosec(["runs", "--format", "json"], cwd, env)).stdout) as {
        runId: string;
        cost: number | null;
      }[];
      expect(listed.find((run) => run.runId === "run-race")?.cost).toBeCloseTo(answered + estimate, 9);

      // The restarted worker's spans (SIGTERM flushes them): the loser's replayed session is cancelled, its finally's is not.
      await stopped(second);
      const sessions = (line: number) =>
        receiver.spans.filter((span) => span.name.startsWith("session") && span.attributes["prose.line"] === line);
      const cancelled = sessions(5).at(-1)!;
      expect(cancelled.status).toMatchObject({ code: 2, message: "cancelled" });
      expect(cancelled.attributes).toMatchObject({ "prose.status": "cancelled", "error.type": "cancelled" });
      expect(sessions(7).at(-1)!.status?.code ?? 0).toBe(0);
      // The winner's session ran in the killed worker, whose spans go out only if its batch was sent in time.
      for (const span of sessions(3)) expect(span.status?.code ?? 0).toBe(0);
    },
  );
});
