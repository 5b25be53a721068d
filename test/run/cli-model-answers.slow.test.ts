/**
 * `prosec run` against a model that does not answer as asked (docs/model-answers.md): a child process
 * against the fake Messages API. What the run did about each unexpected answer is in the narration,
 * the `--json` events and the run folder's journal; the flags set how far it goes.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { firstUserText, reasksIn } from "../support/requests.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));

const PROGRAM = `agent archivist:
  prompt: "You file reports into the archive."
  empty: allow

let story = session "Tell the story"
session: archivist
  prompt: "File the story"
if **the story is finished**:
  session "Praise it"
try:
  session "Write the risky part"
catch as err:
  session "Recover from the refusal"
    context: err
output story = story
`;

/** Misbehaves once at each step: the story is cut off, the judgment answered in text, a refusal. */
function misbehaving(request: FakeRequest): FakeReply {
  const asked = firstUserText(request);
  const first = (request.body?.messages.length ?? 0) === 1;
  if (request.body?.tool_choice !== undefined)
    return reasksIn(request) === 0
      ? reply.text("I think so, probably.")
      : reply.toolUse([{ name: "answer", input: { answer: true, reason: "it ends" } }]);
  if (asked.includes("Tell the story")) return first ? reply.cut("Once upon a ti") : reply.text("me, the end.");
  if (asked.includes("File the story")) return reply.empty();
  if (asked.includes("Write the risky part")) return reply.refusal("I won't write that.");
  return reply.text("Done.");
}

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function run(respond: (request: FakeRequest) => FakeReply, args: readonly string[]) {
  const server = await startFakeAnthropic({ respond });
  servers.push(server);
  const cwd = temporaryFolder("prosec-cli-answers-");
  writeFileSync(join(cwd, "story.prose"), PROGRAM);
  const child = spawn(process.execPath, [bin, "run", "story.prose", ...args], {
    cwd,
    env: { ...process.env, ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = await new Promise<Exit>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return { exit, cwd, server };
}

/** The run's step records (a session's turn records, `{ key, turn }`, are left out: they are its conversation). */
function journal(cwd: string): Array<{ key: string; attempts?: number; problems?: string[]; value: unknown }> {
  const [runId] = readdirSync(join(cwd, ".prose", "runs"));
  return readFileSync(join(cwd, ".prose", "runs", runId!, "journal.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map(
      (line) =>
        JSON.parse(line) as { key: string; turn?: unknown; attempts?: number; problems?: string[]; value: unknown },
    )
    .filter((record) => record.turn === undefined);
}

describe("prosec run when the model does not answer as asked", () => {
  it(
    "continues, asks again, accepts an allowed empty answer, and catches a refusal; all of it narrated and journaled",
    { timeout: 60_000 },
    async () => {
      const { exit, cwd } = await run(misbehaving, []);
      expect(exit.stderr).toContain(
        'Tell the story: continued, the answer was cut off (answer 1: the answer was cut off at max_tokens (8192) after "Once upon a ti")',
      );
      expect(exit.stderr).toContain(
        'The judgment: asked again (answer 1: the model answered in text, not with the "answer" tool: "I think so, probably.")',
      );
      expect(exit.stderr).toContain(
        'Write the risky part: failed (answer 1: the model refused to answer (stop_reason "refusal") (it said "I won\'t write that."))',
      );
      expect(exit.code).toBe(0);
      expect(exit.stdout).toContain("Once upon a time, the end.");
      const steps = journal(cwd);
      expect(steps.find((step) => step.key.startsWith("/session@5:"))).toMatchObject({
        value: "Once upon a time, the end.",
        attempts: 2,
      });
      expect(steps.find((step) => step.key.startsWith("/judge@"))).toMatchObject({
        value: true,
        attempts: 2,
        problems: ['answer 1: the model answered in text, not with the "answer" tool: "I think so, probably."'],
      });
      expect(steps.find((step) => step.key.startsWith("/session@6:"))).toMatchObject({ value: "" });
    },
  );

  it(
    "--json gives an unexpected-answer event for each; --reasks 0 fails the judgment at once",
    { timeout: 60_000 },
    async () => {
      const { exit, server } = await run(misbehaving, ["--json", "--reasks", "0"]);
      expect(exit.code).not.toBe(0);
      const events = exit.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; problem?: string; action?: string; attempt?: number });
      expect(
        events
          .filter((event) => event.type === "unexpected-answer")
          .map((event) => [event.problem, event.action, event.attempt]),
      ).toEqual([
        ["max-tokens", "continue", 1],
        ["text", "fail", 1],
      ]);
      expect(exit.stdout + exit.stderr).toContain("could not be read as yes or no after 1 answer");
      expect(server.requests.filter((request) => request.body?.tool_choice !== undefined)).toHaveLength(1);
    },
  );

  it("--continuations 0 fails a cut answer; --on-truncation keep keeps it, marked", { timeout: 60_000 }, async () => {
    const cut = (request: FakeRequest): FakeReply =>
      firstUserText(request).includes("Tell the story") ? reply.cut("Once upon a ti") : misbehaving(request);
    const failed = await run(cut, ["--continuations", "0"]);
    expect(failed.exit.code).not.toBe(0);
    expect(failed.exit.stderr).toContain("The answer was still cut off at max_tokens (8192) after 0 continuations");
    const kept = await run(cut, ["--continuations", "0", "--on-truncation", "keep"]);
    expect(kept.exit.code).toBe(0);
    expect(kept.exit.stderr).toContain("Tell the story · ");
    expect(kept.exit.stderr).toContain("cut off at max_tokens, kept as it is");
    expect(journal(kept.cwd).find((step) => step.key.startsWith("/session@5:"))).toMatchObject({
      value: "Once upon a ti",
      truncated: true,
    });
  });

  it("rejects a malformed flag with a usage error", { timeout: 30_000 }, async () => {
    const { exit } = await run(misbehaving, ["--reasks", "-1"]);
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain("--reasks takes a whole number of at least 0");
  });
});
