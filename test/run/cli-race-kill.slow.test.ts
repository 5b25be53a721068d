/**
 * `prosec run` killed with SIGKILL during a `parallel ("first")` race, then resumed: the resumed run
 * ends with an uninterrupted run's outputs (the same branch wins), and no step journaled before the
 * kill is asked of the model again.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { reply, type FakeReply, type FakeRequest, type FakeServer } from "../support/fake-anthropic.js";
import { firstUserText } from "../support/requests.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const serve = fakeServersPerTest();
const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));

const PROGRAM = `parallel ("first"):
  a = session "first branch"
  b = do:
    session "second branch, step 1"
    session "second branch, step 2"

output after = session "after the race"
  context: { a, b }
output a = a
output b = b
`;

const task = (request: FakeRequest): string => firstUserText(request).split("\n")[0]!;

/** The first branch answers after 150 ms, the second's steps at once and after 600 ms: the first branch wins. */
function answer(request: FakeRequest): FakeReply {
  const text = task(request);
  const delayMs = text === "first branch" ? 150 : text === "second branch, step 2" ? 600 : 0;
  return reply.text(`R(${text})`, { delayMs });
}

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function prosec(cwd: string, server: FakeServer, args: readonly string[]): { kill: () => void; exit: Promise<Exit> } {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...process.env, ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<Exit>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { kill: () => child.kill("SIGKILL"), exit };
}

function project(): string {
  const cwd = temporaryFolder("prosec-cli-race-kill-");
  writeFileSync(join(cwd, "race.prose"), PROGRAM);
  return cwd;
}

function outputsOf(exit: Exit): unknown {
  const line = JSON.parse(exit.stdout.trim().split("\n").pop() ?? "") as { type: string; outputs?: unknown };
  expect(line.type).toBe("outputs");
  return line.outputs;
}

/** The tasks whose answers the run's journal holds. */
function journaled(cwd: string, runId: string): string[] {
  const path = join(cwd, ".prose", "runs", runId, "journal.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .slice(0, -1)
    .flatMap((line) => {
      const value = (JSON.parse(line) as { value?: unknown }).value;
      return typeof value === "string" && value.startsWith("R(") ? [value.slice(2, -1)] : [];
    });
}

describe("prosec run killed during a race", () => {
  it("resumes to the uninterrupted run's outputs and asks nothing journaled again", { timeout: 120_000 }, async () => {
    const reference = prosec(project(), await serve(answer), ["run", "race.prose", "--json"]);
    const expected = outputsOf(await reference.exit);
    expect(expected).toMatchObject({ a: "R(first branch)", b: null });

    // Killed while both branches are in flight, then once the race was decided.
    for (const killAt of ["second branch, step 2", "after the race"]) {
      const cwd = project();
      const first = await serve((request) => {
        if (task(request) !== killAt) return answer(request);
        started.kill();
        return reply.hang();
      });
      const started = prosec(cwd, first, ["run", "race.prose", "--json"]);
      expect((await started.exit).signal, `killed at ${killAt}`).toBe("SIGKILL");
      const [runId] = readdirSync(join(cwd, ".prose", "runs"));
      const finished = journaled(cwd, runId!);
      expect(finished.length, `journaled before the kill at ${killAt}`).toBeGreaterThan(0);

      const second = await serve(answer);
      const resumed = await prosec(cwd, second, ["run", "race.prose", "--resume", runId!, "--json"]).exit;
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(outputsOf(resumed), `killed at ${killAt}`).toEqual(expected);
      expect(
        second.requests.map(task).filter((asked) => finished.includes(asked)),
        `killed at ${killAt}`,
      ).toEqual([]);
    }
  });
});
