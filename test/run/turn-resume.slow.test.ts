/**
 * The turn journal under `kill -9`, as a user meets it: `prosec run` drives a 6-turn tool session
 * (each turn writes a file and runs a command) against a scripted fake, is killed with SIGKILL at a
 * random moment inside that session, and is resumed with `--resume`, 20 times. Each resume repeats at
 * most the one request in flight, never runs a tool call the journal holds as finished (the command
 * log and the files' modification times tell), and ends with the outputs of an uninterrupted run.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec, type CliResult } from "../support/cli.js";
import { deterministicModel } from "../support/deterministic-model.js";
import {
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  turnOf,
} from "../support/fake-anthropic.js";
import { seededRandom } from "../support/random.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const TOOL_TURNS = 6;
const TRIALS = 20;

const PROGRAM = `agent worker:
  permissions:
    bash: allow

let report = session: worker
  prompt: "Carry out the six steps"

output summary = session "Summarize the report"
  context: report
`;

const isWorker = (request: FakeRequest): boolean => JSON.stringify(request.body?.messages[0]).includes("six steps");

const summarize = deterministicModel();

/** The worker writes a file and logs a command each turn, then answers; anything else is the deterministic model. */
function script(request: FakeRequest): FakeReply {
  if (!isWorker(request)) return summarize(request);
  const turn = turnOf(request);
  // The answer comes late enough that a kill after the last tool turn still lands inside the session.
  if (turn >= TOOL_TURNS)
    return { kind: "message", delayMs: 60, content: [{ type: "text", text: `${turn} steps done` }] };
  return {
    kind: "message",
    stopReason: "tool_use",
    // Wide enough a window for a kill to land while the request is in flight.
    delayMs: 15,
    content: [
      { type: "text", text: `Step ${turn}.` },
      {
        type: "tool_use",
        id: `toolu_write_${turn}`,
        name: "write_file",
        input: { path: `out/step-${turn}.txt`, content: `step ${turn}\n` },
      },
      {
        type: "tool_use",
        id: `toolu_log_${turn}`,
        name: "run_command",
        input: { command: `echo t${turn} >> calls.log` },
      },
    ],
  };
}

const servers: FakeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(respond: (request: FakeRequest) => FakeReply = script): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond });
  servers.push(server);
  return server;
}

function project(): string {
  const cwd = temporaryFolder("prosec-turn-resume-");
  writeFileSync(join(cwd, "work.prose"), PROGRAM);
  return cwd;
}

function outputsOf(result: CliResult): unknown {
  const last = JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { type: string; outputs?: unknown };
  expect(last.type, result.stderr).toBe("outputs");
  return last.outputs;
}

interface TurnLine {
  readonly turn?: { readonly type: string; readonly id?: string };
}

function finishedCalls(cwd: string): string[] {
  const runs = join(cwd, ".prose", "runs");
  const journal = join(runs, readdirSync(runs)[0]!, "journal.jsonl");
  return readFileSync(journal, "utf8")
    .split("\n")
    .filter((line) => line.endsWith("}"))
    .map((line) => JSON.parse(line) as TurnLine)
    .flatMap((line) => (line.turn?.type === "tool-finished" ? [line.turn.id!] : []));
}

const logLines = (cwd: string): string[] => {
  try {
    return readFileSync(join(cwd, "calls.log"), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

const modified = (cwd: string, turn: number): bigint =>
  statSync(join(cwd, "out", `step-${turn}.txt`), { bigint: true }).mtimeNs;

describe("kill -9 inside a 6-turn tool session, then --resume", () => {
  it(`${TRIALS} kills at random moments: each resume repeats at most the request in flight and no finished tool call`, async () => {
    const env = (server: FakeServer) => ({ ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url });
    const referenceServer = await serve();
    const referenceCwd = project();
    const reference = await startProsec(["run", "work.prose", "--json"], referenceCwd, env(referenceServer)).exit;
    expect(reference.status, reference.stderr).toBe(EXIT.ok);
    const expected = outputsOf(reference);
    expect(referenceServer.requests.filter(isWorker)).toHaveLength(TOOL_TURNS + 1);
    expect(logLines(referenceCwd)).toEqual(["t0", "t1", "t2", "t3", "t4", "t5"]);

    const random = seededRandom(30);
    const figures: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const cwd = project();
      // The kill lands a random time after a random worker request arrives: in flight, or among the tools after it.
      const killAt = Math.floor(random() * TOOL_TURNS);
      const delayMs = Math.floor(random() * 40);
      const child: { started?: ReturnType<typeof startProsec> } = {};
      const first = await serve((request) => {
        if (isWorker(request) && turnOf(request) === killAt)
          setTimeout(() => child.started!.child.kill("SIGKILL"), delayMs);
        return script(request);
      });
      child.started = startProsec(["run", "work.prose", "--json"], cwd, env(first));
      const stopped = await child.started.exit;
      expect(child.started.child.signalCode, `trial ${trial}: ${stopped.stderr}`).toBe("SIGKILL");
      const sentBefore = first.requests.filter(isWorker).map(turnOf);
      const finished = finishedCalls(cwd);
      const writtenBefore = new Map(
        finished
          .filter((id) => id.startsWith("toolu_write_"))
          .map((id) => {
            const turn = Number(id.slice("toolu_write_".length));
            return [turn, modified(cwd, turn)] as const;
          }),
      );
      const logBefore = logLines(cwd);

      const second = await serve();
      const runId = readdirSync(join(cwd, ".prose", "runs"))[0]!;
      const resumed = await startProsec(["run", "work.prose", "--resume", runId, "--json"], cwd, env(second)).exit;
      expect(resumed.status, `trial ${trial}: ${resumed.stderr}`).toBe(EXIT.ok);
      expect(outputsOf(resumed), `trial ${trial}`).toEqual(expected);

      const sentAfter = second.requests.filter(isWorker).map(turnOf);
      const repeated = sentAfter.filter((turn) => sentBefore.includes(turn));
      expect(repeated.length, `trial ${trial}: requests sent again ${JSON.stringify(repeated)}`).toBeLessThanOrEqual(1);
      // Every turn is asked at least once in all, and the resume starts where the journal ends.
      expect(new Set([...sentBefore, ...sentAfter]).size).toBe(TOOL_TURNS + 1);
      for (const [turn, before] of writtenBefore)
        expect(modified(cwd, turn), `trial ${trial}: write_file of turn ${turn} ran again`).toBe(before);
      const log = logLines(cwd);
      expect(log.slice(0, logBefore.length)).toEqual(logBefore);
      expect(new Set(log).size, `trial ${trial}: a command ran twice: ${log.join(",")}`).toBe(log.length);
      figures.push(
        `kill after turn ${killAt} request +${delayMs} ms: ${sentBefore.length} sent, ${repeated.length} repeated, ${finished.length} tool calls finished before`,
      );
    }
    console.log(figures.join("\n"));
  }, 600_000);
});
