/**
 * Stopping a session that has started, on DBOS: `prosec cancel`, SIGTERM to its worker, and a worker
 * paused (SIGSTOP) past `--adopt-after` whose run another worker took over (and goes on with from the
 * session's last checkpointed turn). The session is a clerk
 * writing one note per model turn (a tool call each); every worker works in a folder of its own, so
 * the notes in a folder are the tool calls that worker started, and their times say when.
 */
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  prosec,
  result,
  startWorker,
  stopChildren,
  stopped,
  submit,
  waitFor,
  type RunningWorker,
} from "../support/dbos.js";
import { reply, type FakeReply, type FakeRequest } from "../support/fake-anthropic.js";
import { freshDatabase } from "../support/postgres.js";
import { temporaryFolder } from "../support/temp.js";

afterEach(stopChildren);

const PROGRAM = `agent clerk:
  permissions:
    write: ["notes/**"]

input topic: "What to take notes on"

output report = session: clerk
  prompt: "Take notes on {topic}"
`;

const TURNS = 16;

/** One note per turn, then the answer: a session of TURNS model turns and TURNS - 1 tool calls. */
function clerk(request: FakeRequest): FakeReply {
  const messages = request.body?.messages ?? [];
  const topic = /Take notes on (\w+)/.exec(JSON.stringify(messages[0]))?.[1] ?? "nothing";
  const turn = Math.floor(messages.length / 2) + 1;
  if (turn >= TURNS) return reply.text(`Notes on ${topic}: ${turn - 1} taken`);
  return reply.toolUse([{ name: "write_file", input: { path: `notes/${topic}-${turn}.md`, content: `note ${turn}` } }]);
}

function workFolder(): string {
  const cwd = temporaryFolder("prosec-dbos-stop-");
  writeFileSync(join(cwd, "report.prose"), PROGRAM);
  return cwd;
}

/** The notes a worker's tool calls wrote in `cwd`, with the time each was written. */
function notes(cwd: string): { name: string; at: number }[] {
  const dir = join(cwd, "notes");
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((name) => ({ name, at: statSync(join(dir, name)).mtimeMs }));
}

async function setUp(name: string, workers: readonly string[], adoptAfterSeconds: number) {
  const server = await fakeModel({ respond: clerk, latencyMs: 300 });
  const database = await freshDatabase(name);
  const env = environment(database, server);
  const folders = workers.map(() => workFolder());
  const started = await Promise.all(
    workers.map((id, index) => startWorker(id, folders[index]!, env, { adoptAfterSeconds })),
  );
  return { server, env, folders, workers: started };
}

/** The worker whose folder gets the run's third note first: the one running the session. */
async function runningOn(folders: readonly string[]): Promise<number> {
  let index = -1;
  await waitFor(() => {
    index = folders.findIndex((cwd) => notes(cwd).length >= 3);
    return index >= 0;
  }, "the session under way");
  return index;
}

describe("stopping a DBOS run's session", () => {
  it(
    "prosec cancel stops it at once: no request or tool call after the cancel, the worker logs cancelled",
    { timeout: 120_000 },
    async () => {
      const { server, env, folders, workers } = await setUp("cancel", ["w1"], 30);
      await submit(folders[0]!, env, "tea", "run-tea");
      await runningOn(folders);
      const cancel = await prosec(["cancel", "run-tea"], folders[0]!, env);
      const cancelledAt = Date.now();
      expect([cancel.code, cancel.stdout]).toEqual([EXIT.ok, "run run-tea cancelled\n"]);
      const notesAtCancel = notes(folders[0]!).length;
      await waitFor(
        () => workers[0]!.log().includes("run run-tea: cancelled\n"),
        `the worker's line in ${workers[0]!.log()}`,
      );
      expect(workers[0]!.log()).not.toMatch(/run run-tea: failed/);
      const cancelled = await prosec(["result", "run-tea", "--json"], folders[0]!, env);
      expect([cancelled.code, cancelled.stdout, cancelled.stderr]).toEqual([
        EXIT.failed,
        '{"type":"cancelled","runId":"run-tea"}\n',
        "prosec: run run-tea was cancelled (prosec cancel); it has no outputs\n",
      ]);
      // Once the worker has exited, nothing more can come from it: no request, no tool call since the cancel.
      expect(await stopped(workers[0]!)).toBe(EXIT.ok);
      expect(server.requests.filter((request) => request.receivedAt > cancelledAt)).toEqual([]);
      expect(notes(folders[0]!).filter((note) => note.at > cancelledAt)).toEqual([]);
      expect(notesAtCancel).toBeLessThan(TURNS - 1);
    },
  );

  it(
    "SIGTERM stops the session, puts the run back on the queue at once, exits 0; the other worker finishes it",
    { timeout: 180_000 },
    async () => {
      // --adopt-after far beyond the test's timeout: the survivor can only have the run if the victim
      // put it back on the queue (no clock is read: a loaded machine may take a minute over it).
      const { env, folders, workers } = await setUp("sigterm", ["w1", "w2"], 3600);
      await submit(folders[0]!, env, "tea", "run-tea");
      const victim = await runningOn(folders);
      const survivor = 1 - victim;
      const signalledAt = Date.now();
      const beforeSignal = notes(folders[victim]!).map((note) => note.name);
      expect(await stopped(workers[victim]!)).toBe(EXIT.ok);
      const outputs = (await result(folders[0]!, env, "run-tea")) as { report: string };
      expect(outputs.report).toBe(`Notes on tea: ${TURNS - 1} taken`);
      // No tool call starts after the signal; the one under way at it may finish (its file created or
      // written after it, more likely the more loaded the machine): at most that one note is late.
      const late = notes(folders[victim]!).filter((note) => note.at > signalledAt || !beforeSignal.includes(note.name));
      expect(late.length, JSON.stringify(late)).toBeLessThanOrEqual(1);
      // The survivor goes on from the victim's last checkpointed tool call: together they wrote every
      // note, and both wrote at most the one whose call was under way at the stop (write_file runs again).
      const byVictim = notes(folders[victim]!).map((note) => note.name);
      const bySurvivor = notes(folders[survivor]!).map((note) => note.name);
      expect(new Set([...byVictim, ...bySurvivor]).size).toBe(TURNS - 1);
      expect(byVictim.filter((name) => bySurvivor.includes(name)).length).toBeLessThanOrEqual(1);
      const log = workers[victim]!.log();
      expect(log).toContain("run run-tea: stopped with this worker\n");
      expect(log).toContain('1 unfinished run put back on queue "prosec" for other workers\n');
      expect(log).not.toMatch(/failed|\n\s+at /);
      expect(workers[survivor]!.log()).not.toMatch(/was silent/);
    },
  );

  it(
    "a worker paused past --adopt-after and resumed stops its copy before its next tool call",
    { timeout: 180_000 },
    async () => {
      const { env, folders, workers } = await setUp("sigstop", ["w1", "w2"], 2);
      await submit(folders[0]!, env, "tea", "run-tea");
      const victim = await runningOn(folders);
      const survivor = 1 - victim;
      workers[victim]!.process.kill("SIGSTOP");
      const notesAtPause = notes(folders[victim]!).length;
      // Adoption, then two turns on the survivor: over a minute on a heavily loaded machine.
      await waitFor(() => notes(folders[survivor]!).length >= 2, "the run taken over", 150_000);
      const resumedAt = Date.now();
      workers[victim]!.process.kill("SIGCONT");
      const outputs = (await result(folders[0]!, env, "run-tea")) as { report: string };
      expect(outputs.report).toBe(`Notes on tea: ${TURNS - 1} taken`);
      // A tool call in flight at the pause may finish after it (its note written late); the request in
      // flight may come back, but the tool call it asks for is not started: at most that one note more.
      const late = notes(folders[victim]!).filter((note) => note.at > resumedAt);
      expect(late.length).toBeLessThanOrEqual(1);
      expect(notes(folders[victim]!).length).toBeLessThanOrEqual(notesAtPause + 1);
      await waitFor(() => workers[victim]!.log().includes("run run-tea: taken over by another worker\n"), "its line");
      expect(workers[victim]!.process.exitCode).toBeNull();
      expect(workers[survivor]!.log()).toMatch(/worker w\d was silent for 2000 ms: 1 unfinished run put back/);
      for (const worker of workers as RunningWorker[]) expect(await stopped(worker)).toBe(EXIT.ok);
    },
  );
});
