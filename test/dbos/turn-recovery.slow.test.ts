/**
 * A DBOS worker killed inside a session: each model turn and each tool call is a checkpoint of its
 * own, so the restarted worker that recovers the run repeats at most the one request in flight, runs
 * no tool call checkpointed as finished again, and gives the run the outputs of an uninterrupted one.
 *
 * Each run's session is 6 tool turns (each writes a file and appends a line to a log by a command that
 * then sleeps 100 ms, in a folder named after the run), then an answer; a second session summarizes it. One worker serves the
 * runs one at a time. The fake model kills it with SIGKILL a random time after a random turn's
 * request of each run but one (the uninterrupted reference) arrives: while the request is in flight,
 * while its response is checkpointed, or among the tool calls after it (most often inside the
 * command, whose call the recovered session must not run again); the test then starts the
 * worker again under its id, and it recovers the run. The files' modification times and the logs'
 * lines tell which tool calls ran, the fake server's requests which turns were asked, and the
 * database which calls the killed worker had checkpointed as started and as finished.
 *
 * PROSEC_DBOS_KILL_TRIALS sets how many runs are killed (default 5), PROSEC_DBOS_KILL_SEED the seed
 * of their kill moments (default 30): `PROSEC_DBOS_KILL_TRIALS=20 npx vitest run test/dbos/turn-recovery.slow.test.ts`.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  killed,
  prosec,
  startWorker,
  stopChildren,
  withDatabase,
  type RunningWorker,
} from "../support/dbos.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { type FakeReply, type FakeRequest, turnOf } from "../support/fake-anthropic.js";
import { freshDatabase } from "../support/postgres.js";
import { seededRandom } from "../support/random.js";
import { temporaryFolder } from "../support/temp.js";

const TOOL_TURNS = 6;
const TRIALS = Number(process.env["PROSEC_DBOS_KILL_TRIALS"] ?? 5);
const SEED = Number(process.env["PROSEC_DBOS_KILL_SEED"] ?? 30);

const PROGRAM = `agent worker:
  permissions:
    bash: allow

input name: "The folder the steps write in"

let report = session: worker
  prompt: "Carry out the six steps in {name}"

output summary = session "Summarize the report"
  context: report
`;

afterEach(stopChildren);

/** The run killed surely inside a command (turn 2's sleeps 2 s): the recovered session is told it was interrupted. */
const CUT_OFF = "cutoff";

/** The run a request of the worker's session belongs to (undefined: the summary's). */
const runOf = (request: FakeRequest): string | undefined =>
  /six steps in (\w+)/.exec(JSON.stringify(request.body?.messages[0]))?.[1];

const summarize = deterministicModel();

/** Each turn writes a file and logs a command, then the worker answers; the summary is the deterministic model's. */
function script(request: FakeRequest): FakeReply {
  const name = runOf(request);
  if (name === undefined) return summarize(request);
  const turn = turnOf(request);
  if (turn >= TOOL_TURNS)
    return { kind: "message", delayMs: 30, content: [{ type: "text", text: `${turn} steps done` }] };
  return {
    kind: "message",
    stopReason: "tool_use",
    delayMs: 15,
    content: [
      { type: "text", text: `Step ${turn}.` },
      {
        type: "tool_use",
        id: `toolu_write_${turn}`,
        name: "write_file",
        input: { path: `${name}/step-${turn}.txt`, content: `step ${turn}\n` },
      },
      {
        type: "tool_use",
        id: `toolu_log_${turn}`,
        name: "run_command",
        // The command takes a while, so that many kills land while it runs.
        input: { command: `echo t${turn} >> ${name}/calls.log && sleep ${name === CUT_OFF && turn === 2 ? 2 : 0.1}` },
      },
    ],
  };
}

/** A run's kill: when the request for `turn` arrives, SIGKILL the worker `afterMs` later. */
interface Kill {
  readonly turn: number;
  readonly afterMs: number;
  fired: boolean;
}

/** What the killed worker left of a run: the turns asked, the calls checkpointed, the files and log. */
interface Snapshot {
  readonly asked: number[];
  readonly started: string[];
  readonly finished: Map<string, string>;
  readonly written: Map<number, bigint>;
  readonly log: string[];
}

describe("a DBOS worker killed inside a 6-turn tool session, recovered by its restart", () => {
  it(`${TRIALS} kills at random moments: each recovery repeats at most the request in flight and no finished tool call`, async () => {
    const random = seededRandom(SEED);
    const trials = Array.from({ length: TRIALS }, (_, trial) => `trial${trial}`);
    const names = ["reference", CUT_OFF, ...trials];
    const kills = new Map<string, Kill>([
      [CUT_OFF, { turn: 2, afterMs: 800, fired: false }],
      ...trials.map((name): [string, Kill] => [
        name,
        { turn: Math.floor(random() * TOOL_TURNS), afterMs: Math.floor(random() * 150), fired: false },
      ]),
    ]);
    // The worker as a promise, set before it has started: a restarted worker may send the next run's
    // request before its start has resolved, and that request's kill must reach it, not the dead one.
    let worker: Promise<RunningWorker> | undefined;
    let victim: string | undefined;
    const server = await fakeModel({
      respond: (request) => {
        const name = runOf(request);
        const kill = name === undefined ? undefined : kills.get(name);
        if (kill !== undefined && !kill.fired && turnOf(request) === kill.turn) {
          kill.fired = true;
          victim = name;
          const due = Date.now() + kill.afterMs;
          void worker!.then((doomed) =>
            setTimeout(() => doomed.process.kill("SIGKILL"), Math.max(0, due - Date.now())),
          );
        }
        return script(request);
      },
    });
    const database = await freshDatabase("turns");
    const env = environment(database, server);
    const cwd = temporaryFolder("prosec-dbos-turns-");
    writeFileSync(join(cwd, "work.prose"), PROGRAM);
    writeFileSync(join(cwd, "runs.jsonl"), names.map((name) => JSON.stringify({ name })).join("\n"));
    const runIds = new Map(names.map((name, index) => [name, `turns-${index + 1}`]));

    const asked = (name: string): number[] => server.requests.filter((request) => runOf(request) === name).map(turnOf);
    const log = (name: string): string[] => {
      try {
        return readFileSync(join(cwd, name, "calls.log"), "utf8")
          .split("\n")
          .filter(Boolean);
      } catch {
        return [];
      }
    };
    const modified = (name: string, turn: number): bigint =>
      statSync(join(cwd, name, `step-${turn}.txt`), { bigint: true }).mtimeNs;
    /** The run's tool calls checkpointed as started and as finished (by tool_use id, with the result). */
    const checkpointed = (name: string) =>
      withDatabase(database, async (client) => {
        const { rows } = await client.query<{ function_name: string; output: string | null }>(
          "SELECT function_name, output FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id",
          [runIds.get(name)],
        );
        const idIn = (output: string | null): string => /toolu_\w+/.exec(output ?? "")?.[0] ?? "?";
        return {
          started: rows.filter((row) => row.function_name.endsWith(" tool-started")).map((row) => idIn(row.output)),
          finished: new Map(
            rows
              .filter((row) => row.function_name.endsWith(" tool"))
              .map((row) => [idIn(row.output), row.output ?? ""] as const),
          ),
        };
      });
    const work = (): Promise<RunningWorker> =>
      startWorker("w1", cwd, env, { file: "work.prose", concurrency: 1, adoptAfterSeconds: 600 });

    worker = work();
    await worker;
    const submitted = await prosec(["submit", "work.prose", "--inputs", "runs.jsonl", "--id", "turns"], cwd, env);
    expect([submitted.code, submitted.stderr]).toEqual([EXIT.ok, ""]);
    const snapshots = new Map<string, Snapshot>();
    for (let kill = 0; kill < kills.size; kill++) {
      const running = await worker;
      await running.exited;
      expect(running.process.signalCode, running.log()).toBe("SIGKILL");
      const name = victim!;
      expect(snapshots.has(name)).toBe(false);
      const { started, finished } = await checkpointed(name);
      const written = new Map(
        [...finished.keys()]
          .filter((id) => id.startsWith("toolu_write_"))
          .map((id) => Number(id.slice("toolu_write_".length)))
          .map((turn) => [turn, modified(name, turn)] as const),
      );
      snapshots.set(name, { asked: asked(name), started, finished, written, log: log(name) });
      // Started again under its id, the worker recovers its own run at launch, then takes the next.
      worker = work();
      await worker;
    }
    const outputs = await Promise.all(
      names.map(async (name) => {
        const exit = await prosec(["result", runIds.get(name)!, "--json", "--timeout", "60"], cwd, env);
        expect([exit.code, exit.stderr], name).toEqual([EXIT.ok, ""]);
        return (JSON.parse(exit.stdout) as { outputs: unknown }).outputs;
      }),
    );
    await killed(await worker);

    expect(asked("reference")).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(log("reference")).toEqual(["t0", "t1", "t2", "t3", "t4", "t5"]);
    const figures: string[] = [];
    for (const [index, name] of names.entries()) {
      expect(outputs[index], name).toEqual(outputs[0]);
      if (name === "reference") continue;
      const kill = kills.get(name)!;
      const before = snapshots.get(name)!;
      const after = await checkpointed(name);
      const askedAfter = asked(name).slice(before.asked.length);
      const repeated = askedAfter.filter((turn) => before.asked.includes(turn));
      expect(repeated.length, `${name}: turns asked again ${JSON.stringify(repeated)}`).toBeLessThanOrEqual(1);
      expect(new Set([...before.asked, ...askedAfter]).size, name).toBe(TOOL_TURNS + 1);
      for (const [turn, at] of before.written)
        expect(modified(name, turn), `${name}: write_file of turn ${turn} ran again`).toBe(at);
      const lines = log(name);
      expect(lines.slice(0, before.log.length), name).toEqual(before.log);
      expect(new Set(lines).size, `${name}: a command ran twice: ${lines.join(",")}`).toBe(lines.length);
      for (const [id, result] of before.finished) expect(after.finished.get(id), `${name}: ${id}`).toBe(result);
      expect(after.finished.size, name).toBe(2 * TOOL_TURNS);
      // A command cut off by the kill is not run again: the model is told its effect is unknown.
      const cutOff = before.started.filter((id) => !before.finished.has(id));
      for (const id of cutOff.filter((id) => id.startsWith("toolu_log_")))
        expect(after.finished.get(id), `${name}: ${id}`).toMatch(/interrupted while this run_command call/);
      if (name === CUT_OFF) {
        expect(cutOff).toEqual(["toolu_log_2"]);
        const told = server.requests.find((request) => runOf(request) === name && turnOf(request) === 3);
        expect(JSON.stringify(told?.body?.messages.at(-1))).toMatch(
          /"tool_use_id":"toolu_log_2","is_error":true,"content":"The run was interrupted while this run_command call was running, and it is not run again/,
        );
      }
      figures.push(
        `${name}: killed ${kill.afterMs} ms after turn ${kill.turn}'s request: ${before.asked.length} request${before.asked.length === 1 ? "" : "s"} before, ` +
          `${repeated.length} repeated; ${before.finished.size} tool call${before.finished.size === 1 ? "" : "s"} finished before, none run again` +
          (cutOff.length === 0 ? "" : `; cut off: ${cutOff.join(", ")}`),
      );
    }
    console.log(figures.join("\n"));
  }, 600_000);
});
