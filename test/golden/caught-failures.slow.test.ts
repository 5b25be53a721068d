/**
 * A run whose `try`/`catch` caught an API error, a refusal and a judgment that failed validation, as
 * a user meets it: `prosec run` narrates each failure as caught, `prosec runs show` lists the three
 * steps as caught (not as sessions still running), `prosec test --save` keeps the run as a golden test
 * and `prosec test` replays it green with no server, the failures taken from the journal.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));
const SLOW = 120_000;

const PROGRAM = `let figures = try:
  session "Fetch the figures"
catch as err:
  session "Estimate the figures instead"
    context: err

let pitch = try:
  session "Write the pitch"
catch:
  session "Write a plain pitch"

let verdict = try:
  if **the figures are plausible**:
    session "Approve the figures"
catch as why:
  session "Say why the figures were not judged"
    context: why

output summary = session "Sum up"
  context: { figures, pitch, verdict }
`;

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let server: FakeServer;
let project: string;

function prosec(args: readonly string[], baseURL = "http://127.0.0.1:9"): Promise<Result> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ANTHROPIC_API_KEY: TEST_API_KEY,
      ANTHROPIC_BASE_URL: baseURL,
      NO_COLOR: "1",
    };
    const child = spawn(process.execPath, [bin, ...args], { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  requireBuiltRuntime();
  server = await startFakeAnthropic({
    script: [
      reply.error(400, { message: "prompt is too long" }),
      reply.text("Roughly 40 units."),
      reply.refusal("I can't write that."),
      reply.text("A plain pitch."),
      // The judgment answers in text, never through its answer tool: with --reasks 0 it fails at once.
      reply.text("Perhaps."),
      reply.text("The judgment gave no usable answer."),
      reply.text("All summed up."),
    ],
  });
  project = temporaryFolder("prosec-caught-");
  writeFileSync(join(project, "figures.prose"), PROGRAM);
});

afterAll(async () => server?.close());

describe("a run whose catch took failures", () => {
  it(
    "narrates them as caught, lists them as caught, and is saved and replayed as a golden test",
    async () => {
      const ran = await prosec(["run", "figures.prose", "--reasks", "0"], server.url);
      expect(ran.code, ran.stderr).toBe(EXIT.ok);
      expect(ran.stdout).toContain("All summed up.");
      const caught = ran.stderr.split("\n").filter((line) => line.includes("→ caught"));
      expect(caught).toEqual([
        expect.stringMatching(/^✗ 2:3 Fetch the figures failed \(API error\): 400 .*prompt is too long.* → caught$/),
        expect.stringMatching(/^✗ 8:3 Write the pitch failed \(the model refused\): The model refused .* → caught$/),
        expect.stringMatching(
          /^✗ 13:6 The judgment failed \(no usable answer\): The model's judgment could not .* → caught$/,
        ),
      ]);
      // What `catch as err` bound reached the session that handled it.
      const handled = server.requests[1]!.body!.messages.map((message) => JSON.stringify(message.content)).join("");
      expect(handled).toContain("prompt is too long");

      const [runId] = readdirSync(join(project, ".prose/runs"));
      const journal = readFileSync(join(project, ".prose/runs", runId!, "journal.jsonl"), "utf8");
      const failed = journal
        .split("\n")
        .filter((line) => line.includes('"failed"'))
        .map((line) => (JSON.parse(line) as { kind: string; failed: { cause: string } }).failed.cause);
      expect(failed).toEqual(["api-error", "refusal", "invalid-answer"]);

      const shown = await prosec(["runs", "show", runId!]);
      expect(shown.code, shown.stderr).toBe(EXIT.ok);
      expect(shown.stdout).not.toContain("running");
      const rows = shown.stdout
        .split("\n")
        .slice(1)
        .filter((line) => line.trim() !== "")
        .map((line) => line.split(/\s{2,}/));
      const statuses = rows.map((row) => row[3]);
      expect(statuses).toEqual([
        "caught (api-error)",
        "finished",
        "caught (refusal)",
        "finished",
        "caught (invalid-answer)",
        "finished",
        "finished",
      ]);
      // A failed step's calls were billed: the refusal and the judgment's answers count, the API errors
      // had none.
      const tokens = rows.map((row) => Number(row[5]!.replaceAll(",", "")));
      expect(tokens[0]).toBe(0);
      expect(tokens[2]).toBeGreaterThan(0);
      expect(tokens[4]).toBeGreaterThan(0);

      const requests = server.requests.length;
      const save = await prosec(["test", "--save", runId!, "figures"]);
      expect(save.code, save.stdout + save.stderr).toBe(EXIT.ok);
      expect(save.stdout).toContain("✓ tests/figures.golden (figures.prose)");
      expect(readFileSync(join(project, "tests/figures.golden/journal.jsonl"), "utf8")).toContain('"refusal"');

      const replay = await prosec(["test"]);
      expect(replay.stdout).toBe("✓ tests/figures.golden (figures.prose)\n\n1 passed, 0 failed\n");
      expect(replay.code).toBe(EXIT.ok);
      // Nothing reached the server after the recorded run.
      expect(server.requests.length).toBe(requests);
    },
    SLOW,
  );
});
