/**
 * `prosec test` as a user runs it: `prosec run` records a run against the fake Messages API, `prosec
 * test --save` keeps it as a golden test, and `prosec test` replays it in a process with no server
 * at all (ANTHROPIC_BASE_URL points nowhere), through edits, a missing step, --write-pending, --update
 * and --format json, with the exit codes of the one table.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { lastUserText, reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));
const SLOW = 120_000;

const PROGRAM = `input topic: "The topic"

let notes = session "Collect notes on {topic}"

loop until **the notes are complete** (max: 2):
  notes = session "Add to the notes"
    context: notes

output summary = session "Summarise the notes"
  context: notes
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

const lastLine = (text: string): string => text.trimEnd().split("\n").pop() ?? "";

beforeAll(async () => {
  requireBuiltRuntime();
  server = await startFakeAnthropic({
    respond: (request) =>
      request.body?.tool_choice !== undefined
        ? reply.toolUse([{ name: "answer", input: { answer: true, reason: "complete" } }])
        : reply.text(`re: ${lastUserText(request).split("\n")[0]}`),
  });
  project = temporaryFolder("prosec-test-cli-");
  writeFileSync(join(project, "notes.prose"), PROGRAM);
});

afterAll(async () => server.close());

describe("prosec test", () => {
  it(
    "saves a recorded run and replays it with no server, through edits, a missing step and --update",
    async () => {
      const ran = await prosec(["run", "notes.prose", "-i", "topic=tides"], server.url);
      expect(ran.code, ran.stderr).toBe(EXIT.ok);
      const [runId] = readdirSync(join(project, ".prose/runs"));
      const requests = server.requests.length;

      const none = await prosec(["test"]);
      expect(none).toMatchObject({ code: EXIT.usage, stderr: expect.stringContaining("tests: no such folder") });

      const save = await prosec(["test", "--save", runId!, "notes"]);
      expect(save.stdout).toBe(
        "✓ tests/notes.golden (notes.prose)\n    wrote tests/notes.golden/run.json\n    wrote tests/notes.golden/journal.jsonl\n    wrote tests/notes.golden/expected.json\n\n1 passed, 0 failed\n",
      );
      expect(save.code).toBe(EXIT.ok);

      // Both the saved copy and the run folder itself are golden tests; no request leaves the process.
      const replay = await prosec(["test", "tests", `.prose/runs/${runId}`]);
      expect(replay.stdout).toBe(
        `✓ tests/notes.golden (notes.prose)\n✓ .prose/runs/${runId} (notes.prose)\n\n2 passed, 0 failed\n`,
      );
      expect(replay.code).toBe(EXIT.ok);

      // Comments and blank lines above the steps change nothing.
      writeFileSync(
        join(project, "notes.prose"),
        `# Notes.\n\n${PROGRAM.replace("let notes", "# first pass\n\nlet notes")}`,
      );
      expect(await prosec(["test"])).toMatchObject({
        code: EXIT.ok,
        stdout: "✓ tests/notes.golden (notes.prose)\n\n1 passed, 0 failed\n",
      });

      // A new step fails the test, with its line and what it asks; --write-pending writes it to answer.
      writeFileSync(
        join(project, "notes.prose"),
        PROGRAM.replace(
          "output summary",
          'let title = session "Title the notes on {topic}"\n\noutput title = title\noutput summary',
        ),
      );
      const missing = await prosec(["test"]);
      expect(missing.code).toBe(EXIT.failed);
      expect(missing.stdout).toContain(
        "✗ tests/notes.golden (notes.prose)\n    notes.prose:9:13: the session title is not in the recording\n      asks: Title the notes on tides\n",
      );
      expect(missing.stdout).toContain("prosec test --write-pending");
      expect(lastLine(missing.stdout)).toBe("0 passed, 1 failed");
      const json = await prosec(["test", "--format", "json", "--write-pending"]);
      expect(json.code).toBe(EXIT.failed);
      const report = JSON.parse(json.stdout) as {
        tests: {
          name: string;
          status: string;
          failures: { kind: string; step: { key: string } }[];
          written: string[];
        }[];
        passed: number;
        failed: number;
      };
      expect(report).toMatchObject({
        passed: 0,
        failed: 1,
        tests: [
          {
            name: "tests/notes.golden",
            status: "failed",
            failures: [{ kind: "missing-step", step: { key: "/session@9:13#0" } }],
            written: ["tests/notes.golden/answers.json"],
          },
        ],
      });

      const answers = JSON.parse(readFileSync(join(project, "tests/notes.golden/answers.json"), "utf8")) as {
        answers: { answer: unknown }[];
      };
      answers.answers[0]!.answer = "Tides";
      writeFileSync(join(project, "tests/notes.golden/answers.json"), JSON.stringify(answers));
      const differs = await prosec(["test"]);
      expect(differs.code).toBe(EXIT.failed);
      expect(differs.stdout).toContain('    output "title" is not expected\n      actual:   "Tides"\n');
      const updated = await prosec(["test", "--update"]);
      expect(updated.code, updated.stdout).toBe(EXIT.ok);
      expect(await prosec(["test"])).toMatchObject({
        code: EXIT.ok,
        stdout: "✓ tests/notes.golden (notes.prose)\n\n1 passed, 0 failed\n",
      });
      expect(server.requests.length).toBe(requests);
    },
    SLOW,
  );
});
