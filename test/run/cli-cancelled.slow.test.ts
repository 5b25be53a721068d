/**
 * `prosec run` of a `"first"` race whose loser is cancelled while its request is in flight: `--json`
 * ends the cancelled session as cancelled (never a start without an end), the narration says so,
 * the loser's `finally` session runs, and `prosec runs show` lists the step as cancelled.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { prosec, startProsec } from "../support/cli.js";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { firstUserText } from "../support/requests.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const PROGRAM = `parallel ("first"):
  a = session "fast"
  b = try:
    session "slow"
  finally:
    session "cleanup"
output a = a
`;

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `slow` never answers; `fast` answers once `slow` is in flight; anything else answers at once. */
async function serve(): Promise<FakeServer> {
  let slowArrived: () => void = () => {};
  const slow = new Promise<void>((resolve) => (slowArrived = resolve));
  return startFakeAnthropic({
    respond: async (request: FakeRequest): Promise<FakeReply> => {
      const task = firstUserText(request).split("\n")[0]!;
      if (task.includes("slow")) {
        slowArrived();
        return reply.hang();
      }
      if (task.includes("fast")) await slow;
      return reply.text(`R(${task})`);
    },
  });
}

interface Event {
  readonly type: string;
  readonly label?: string;
  readonly cancelled?: true;
}

describe("prosec run: a cancelled branch", () => {
  it(
    "--json ends the cancelled session as cancelled; its finally runs; runs show says cancelled",
    { timeout: 60_000 },
    async () => {
      server = await serve();
      const cwd = temporaryFolder("prosec-cli-cancelled-");
      writeFileSync(join(cwd, "race.prose"), PROGRAM);
      const env = { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url };
      const json = await startProsec(["run", "race.prose", "--json"], cwd, env).exit;
      expect(json.status).toBe(0);
      const events = json.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Event);
      const ends = (label: string) => events.filter((event) => event.type === "session-end" && event.label === label);
      expect(ends("slow")).toEqual([expect.objectContaining({ cancelled: true })]);
      expect(ends("cleanup")).toHaveLength(1);
      expect(events.filter((event) => event.type === "session-start")).toHaveLength(
        events.filter((event) => event.type === "session-end").length,
      );
      expect(server.requests.find((request) => firstUserText(request).startsWith("slow"))?.state).toBe("aborted");

      const runId = /"runId":"([^"]+)"/.exec(json.stdout)![1]!;
      const shown = prosec(["runs", "show", runId, "--format", "json"], cwd);
      expect(shown.status).toBe(0);
      const steps = JSON.parse(shown.stdout) as Array<{ kind: string; status: string; line: number | null }>;
      expect(steps).toContainEqual(expect.objectContaining({ kind: "session", status: "cancelled", line: 4 }));

      const plain = await startProsec(["run", "race.prose"], cwd, env).exit;
      expect(plain.status).toBe(0);
      expect(plain.stderr).toMatch(/^⊘ 4:5 slow · cancelled$/m);
      expect(plain.stderr).toMatch(/^✓ 6:5 cleanup · /m);
    },
  );
});
