/**
 * `prosec run` killed with SIGKILL at exact points of its writes (test/support/kill-at.mjs, preloaded):
 * after the Nth journal line, half-way through one, before the atomic replace of a binding file or of
 * a persistent agent's memory files, and while a request or a tool-using session is in flight. After
 * each kill the run folder reads (every journal line whole, run.json there), and `--resume` ends with
 * an uninterrupted run's outputs, asks no journaled step again, writes each tool's file once,
 * leaves the agent's memory as an uninterrupted run leaves it (one segment per session), and leaves
 * no temporary file of the killed process behind.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseJournal } from "../../runtime/durable/file-journal.js";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec, type CliResult, type StartedCli } from "../support/cli.js";
import { deterministicModel, identity } from "../support/deterministic-model.js";
import { reply, turnOf, type FakeReply, type FakeRequest } from "../support/fake-anthropic.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { seededRandom } from "../support/random.js";
import { firstUserText } from "../support/requests.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const serve = fakeServersPerTest();
const KILL_AT = fileURLToPath(new URL("../support/kill-at.mjs", import.meta.url));

const PROGRAM = `agent keeper:
  persist: true

agent scribe:
  permissions:
    write: allow

input topic: "Topic"
let a = session "Alpha about {topic}"
parallel:
  b = session "Beta"
  c = session: keeper
    prompt: "Gamma"
loop until **enough** (max: 2):
  session "Loop step"
let d = session: scribe
  prompt: "Write the notes"
output result = session "Final"
  context: { a, b, c, d }
`;

const NOTES = "Write the notes";
const answer = deterministicModel(() => false);

/** The scribe writes notes-0.txt and notes-1.txt, one turn each, then answers; the rest is the deterministic model. */
function script(request: FakeRequest): FakeReply {
  if (!firstUserText(request).includes(NOTES) || request.body?.tool_choice !== undefined) return answer(request);
  const turn = turnOf(request);
  if (turn >= 2) return reply.text(`[${identity(request)}] notes written`);
  return {
    kind: "message",
    stopReason: "tool_use",
    content: [
      {
        type: "tool_use",
        id: `toolu_notes_${turn}`,
        name: "write_file",
        input: { path: `notes-${turn}.txt`, content: `n${turn}` },
      },
    ],
  };
}

function project(): string {
  const cwd = temporaryFolder("prosec-kill-points-");
  writeFileSync(join(cwd, "p.prose"), PROGRAM);
  return cwd;
}

function prosec(cwd: string, url: string, args: readonly string[], killAt?: string): StartedCli {
  return startProsec(["run", "p.prose", "--json", ...args], cwd, {
    ANTHROPIC_API_KEY: TEST_API_KEY,
    ANTHROPIC_BASE_URL: url,
    ...(killAt === undefined ? {} : { NODE_OPTIONS: `--import ${KILL_AT}`, PROSEC_KILL_AT: killAt }),
  });
}

function outputsOf(result: CliResult): unknown {
  const last = JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { type: string; outputs?: unknown };
  expect(last.type, result.stderr + result.stdout).toBe("outputs");
  return last.outputs;
}

function runFolder(cwd: string): string {
  const runs = join(cwd, ".prose", "runs");
  return join(runs, readdirSync(runs)[0]!);
}

/** The run folder reads as a resume reads it (run.json is JSON, every journal line with its checksum); the journal's complete lines. */
function readable(dir: string): string {
  JSON.parse(readFileSync(join(dir, "run.json"), "utf8"));
  const path = join(dir, "journal.jsonl");
  const journal = existsSync(path) ? readFileSync(path, "utf8") : "";
  parseJournal(journal, path, 0);
  // A line cut short by the kill does not count: its step runs again.
  return journal.slice(0, journal.lastIndexOf("\n") + 1);
}

/** The keeper's memory: memory.md and its segments, without their timestamps and run ids. */
function memory(dir: string): string[] {
  const folder = join(dir, "agents", "keeper");
  return readdirSync(folder)
    .sort()
    .map((name) => `${name}\n${readFileSync(join(folder, name), "utf8").replace(/^(timestamp|run): .*$/gm, "")}`);
}

/** Kill points: by the hook at a write, or by the fake server when a request with this task arrives. */
type KillPoint = { readonly hook: string } | { readonly request: string; readonly turn?: number };

describe("prosec run killed with SIGKILL at any point, then --resume", () => {
  it(
    "ends as an uninterrupted run, asks no journaled step again, records each session's memory once",
    { timeout: 600_000 },
    async () => {
      const reference = await serve(script);
      const referenceCwd = project();
      const uninterrupted = await prosec(referenceCwd, reference.url, ["--input", "topic=tides"]).exit;
      expect(uninterrupted.status, uninterrupted.stderr).toBe(EXIT.ok);
      const expected = outputsOf(uninterrupted);
      const referenceDir = runFolder(referenceCwd);
      const expectedMemory = memory(referenceDir);
      expect(expectedMemory.map((file) => file.split("\n")[0])).toEqual(["keeper-001.md", "memory.md"]);
      const lines = readable(referenceDir).split("\n").length - 1;

      const random = seededRandom(8);
      const pick = (from: number, to: number): number => from + Math.floor(random() * (to - from + 1));
      const points: KillPoint[] = [
        ...Array.from({ length: 4 }, () => ({ hook: `journal:${pick(1, lines - 1)}` })),
        ...Array.from({ length: 2 }, () => ({ hook: `torn:${pick(1, lines)}` })),
        // The keeper's segment, then its memory.md: every write of its memory.
        { hook: "rename:/agents/keeper/:1" },
        { hook: "rename:/agents/keeper/:2" },
        { hook: `rename:/bindings/:${pick(1, 5)}` },
        { request: "Final" },
        { request: NOTES, turn: 1 },
      ];
      for (const point of points) {
        const name = "hook" in point ? point.hook : `request ${point.request} turn ${point.turn ?? 0}`;
        const cwd = project();
        const killed: { started?: StartedCli } = {};
        const first = await serve((request) => {
          const kill =
            "request" in point &&
            firstUserText(request).includes(point.request) &&
            request.body?.tool_choice === undefined &&
            turnOf(request) === (point.turn ?? 0);
          if (!kill) return script(request);
          killed.started!.child.kill("SIGKILL");
          return reply.hang();
        });
        killed.started = prosec(cwd, first.url, ["--input", "topic=tides"], "hook" in point ? point.hook : undefined);
        const stopped = await killed.started.exit;
        expect(killed.started.child.signalCode, `${name}: ${stopped.stderr}`).toBe("SIGKILL");
        const dir = runFolder(cwd);
        const journal = readable(dir);

        const second = await serve(script);
        const resumed = await prosec(cwd, second.url, ["--resume", dir.split("/").at(-1)!]).exit;
        expect(resumed.status, `${name}: ${resumed.stderr}${resumed.stdout}`).toBe(EXIT.ok);
        expect(outputsOf(resumed), name).toEqual(expected);
        const again = second.requests.map(identity).filter((id) => journal.includes(`[${id}]`));
        expect(again, `${name}: journaled steps asked again`).toEqual([]);
        expect(memory(dir), name).toEqual(expectedMemory);
        expect(
          readdirSync(cwd)
            .filter((file) => file.startsWith("notes-"))
            .sort(),
          name,
        ).toEqual(["notes-0.txt", "notes-1.txt"]);
        expect(readFileSync(join(dir, "state.md"), "utf8"), name).toContain("status: complete");
        const temporary = (folder: string): string[] =>
          readdirSync(folder, { recursive: true })
            .map(String)
            .filter((file) => file.endsWith(".tmp"));
        expect(temporary(dir), `${name}: temporary files left`).toEqual([]);
      }
    },
  );
});
