/**
 * Faults of the machine and of concurrent commands, through the real CLI (issue 41): a disk that
 * fills up while the run journals (a small tmpfs), a read-only run folder, two `prosec run --resume`
 * of one run released at one instant, and `prosec answer` released at the same instant as a resume.
 * Whatever happens, the journal stays whole, no finished step runs twice, and no answer is lost.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parseJournal } from "../../runtime/durable/file-journal.js";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec, type CliResult } from "../support/cli.js";
import { askedText, reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const mounted: string[] = [];
afterAll(() => {
  for (const point of mounted.splice(0)) {
    execFileSync("umount", [point]);
    rmdirSync(point);
  }
});

/** A tmpfs of `size` (`256k`) at a new folder, unmounted when the file ends. */
function tmpfs(size: string): string {
  const point = mkdtempSync(join(tmpdir(), "prosec-tmpfs-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", point]);
  mounted.push(point);
  return point;
}

/** Whether this process may mount a tmpfs (root, outside a container that forbids it). */
function canMount(): boolean {
  try {
    const point = tmpfs("64k");
    execFileSync("umount", [point]);
    rmdirSync(point);
    mounted.splice(mounted.indexOf(point), 1);
    return true;
  } catch {
    return false;
  }
}

/** Sessions answer `done: <their first line>` and `padding` characters more. */
async function serve(padding = 0, latencyMs = 0): Promise<FakeServer> {
  const server = await startFakeAnthropic({
    latencyMs,
    respond: (request) => reply.text(`done: ${firstLine(askedText(request))}\n${"x".repeat(padding)}`),
  });
  servers.push(server);
  return server;
}

function firstLine(text: string): string {
  return text.split("\n").find((line) => line !== "" && line !== "## Your task") ?? "";
}

function prosec(cwd: string, server: FakeServer, args: readonly string[]): Promise<CliResult> {
  return startProsec(args, cwd, {
    ANTHROPIC_API_KEY: TEST_API_KEY,
    ANTHROPIC_BASE_URL: server.url,
    DBOS_SYSTEM_DATABASE_URL: "",
  }).exit;
}

function onlyRun(cwd: string): string {
  const runs = readdirSync(join(cwd, ".prose", "runs"));
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

/** The first lines of what the server was asked, in order. */
function asked(server: FakeServer): string[] {
  return server.requests.map((request) => firstLine(askedText(request)));
}

/** The journal's step records, each line checked (whole, a step record, its checksum holding). */
function journalValues(dir: string): string[] {
  const path = join(dir, "journal.jsonl");
  const content = readFileSync(path, "utf8");
  expect(content === "" || content.endsWith("\n")).toBe(true);
  return parseJournal(content, path, 0).records.map((record) => String(record.value));
}

const FILLS_THE_DISK = `parallel (on-fail: "continue"):
  a = try:
    repeat 40 as i:
      session "Branch A step {i}"
  catch:
    session "A caught"
  b = try:
    repeat 40 as i:
      session "Branch B step {i}"
  catch:
    session "B caught"
output report = session "Report"
`;

describe.runIf(canMount())("a full disk", () => {
  it(
    "stops the run with exit 9, its journal whole up to the last complete record, and the run resumes without repeating a finished step once there is room",
    { timeout: 120_000 },
    async () => {
      const cwd = tmpfs("256k");
      writeFileSync(join(cwd, "fill.prose"), FILLS_THE_DISK);
      const first = await serve(3000);
      const failed = await prosec(cwd, first, ["run", "fill.prose"]);
      expect(failed.status, failed.stderr).toBe(EXIT.environment);
      expect(failed.stderr).toContain("no space left on the device (ENOSPC)");
      expect(failed.stderr).toContain("not of prosec or the program");
      expect(failed.stderr).not.toMatch(/bug in prosec|\n\s+at /);
      const runId = onlyRun(cwd);
      expect(failed.stderr).toContain(`resume with: prosec run fill.prose --resume ${runId}`);
      const dir = join(cwd, ".prose", "runs", runId);
      expect(existsSync(join(dir, ".lock"))).toBe(false);
      const recorded = journalValues(dir);
      expect(recorded.length).toBeGreaterThan(0);
      // The catch: bodies did not handle the machine's failure.
      expect(asked(first)).not.toContain("A caught");
      expect(asked(first)).not.toContain("B caught");

      execFileSync("mount", ["-o", "remount,size=16m", cwd]);
      const second = await serve(3000);
      const resumed = await prosec(cwd, second, ["run", "fill.prose", "--resume", runId]);
      expect(resumed.status, resumed.stderr).toBe(EXIT.ok);
      const finished = new Set(recorded.map((value) => firstLine(value.replace(/^done: /, ""))));
      const again = asked(second).filter((prompt) => finished.has(prompt));
      expect(again).toEqual([]);
      expect(asked(second)).toContain("Report");
      expect(journalValues(dir).length).toBe(81);
    },
  );

  it(
    "a read-only run folder is the machine's problem too (exit 9), not a bug in prosec",
    { timeout: 30_000 },
    async () => {
      const cwd = tmpfs("1m");
      writeFileSync(join(cwd, "hello.prose"), `output answer = session "Hello"\n`);
      execFileSync("mount", ["-o", "remount,ro", cwd]);
      const server = await serve();
      const refused = await prosec(cwd, server, ["run", "hello.prose"]);
      expect(refused.status, refused.stderr).toBe(EXIT.environment);
      expect(refused.stderr).toContain("the file system is read-only (EROFS)");
      expect(refused.stderr).not.toContain("bug in prosec");
      expect(server.requests).toHaveLength(0);
    },
  );
});

const WAITS = `input topic: "Topic"
let draft = session "Draft about {topic}"
input approval: "Approve?"
session "Step one ({approval})"
session "Step two"
session "Step three"
output result = session "Final ({approval})"
`;

/** A project with a run of WAITS waiting for `approval`. */
async function waitingRun(): Promise<{ cwd: string; runId: string }> {
  const cwd = temporaryFolder("prosec-faults-");
  writeFileSync(join(cwd, "waits.prose"), WAITS);
  const server = await serve();
  const waiting = await prosec(cwd, server, ["run", "waits.prose", "--input", "topic=tides"]);
  expect(waiting.status, waiting.stderr).toBe(EXIT.waitingForInput);
  return { cwd, runId: onlyRun(cwd) };
}

/**
 * Named pipes the commands read an input from: each blocks on its pipe until `release` writes all of
 * them, one after the other with nothing in between, so the commands go on at one instant.
 */
function gates(cwd: string, count: number): { paths: string[]; release(values: readonly string[]): Promise<void> } {
  mkdirSync(join(cwd, "gates"));
  const paths = Array.from({ length: count }, (_, index) => join(cwd, "gates", `gate-${index}`));
  for (const path of paths) execFileSync("mkfifo", [path]);
  return {
    paths,
    async release(values) {
      // Opening a pipe for writing waits for its reader: once all are open, every command waits on its read.
      const handles = await Promise.all(paths.map((path) => open(path, "w")));
      await Promise.all(handles.map((handle, index) => handle.write(values[index]!).then(() => handle.close())));
    },
  };
}

describe("two commands on one run at one instant", () => {
  it(
    "two resumes: one runs the run, the other says it is in use (exit 7) and does nothing; no step is sent twice",
    { timeout: 240_000 },
    async () => {
      for (let pair = 0; pair < 6; pair++) {
        const { cwd, runId } = await waitingRun();
        const server = await serve(0, 40);
        const gate = gates(cwd, 2);
        const resumes = gate.paths.map((path) =>
          prosec(cwd, server, ["run", "waits.prose", "--resume", runId, "--input", `approval=@${path}`]),
        );
        await gate.release(["yes", "yes"]);
        const results = await Promise.all(resumes);
        const statuses = results.map((result) => result.status).sort();
        expect(statuses, results.map((result) => result.stderr).join("\n")).toEqual([EXIT.ok, EXIT.runStateUnusable]);
        const refused = results.find((result) => result.status === EXIT.runStateUnusable)!;
        expect(refused.stderr).toMatch(new RegExp(`Run ${runId} is in use by process \\d+`));
        const prompts = asked(server);
        expect(prompts).toEqual(["Step one (yes)", "Step two", "Step three", "Final (yes)"]);
        const dir = join(cwd, ".prose", "runs", runId);
        expect(journalValues(dir)).toHaveLength(6);
        expect(JSON.parse(readFileSync(join(dir, "spent.json"), "utf8")).calls).toBe(5);
      }
    },
  );

  it(
    "prosec answer and a resume: the answer is used or kept, or refused while the run is in use; never reported and lost",
    { timeout: 240_000 },
    async () => {
      for (let pair = 0; pair < 6; pair++) {
        const { cwd, runId } = await waitingRun();
        const server = await serve(0, 40);
        const gate = gates(cwd, 2);
        const answer = prosec(cwd, server, ["answer", runId, `approval=@${gate.paths[0]}`]);
        const resume = prosec(cwd, server, [
          "run",
          "waits.prose",
          "--resume",
          runId,
          "--input",
          `topic=@${gate.paths[1]}`,
        ]);
        await gate.release(["yes", "tides"]);
        const [answered, resumed] = await Promise.all([answer, resume]);
        const dir = join(cwd, ".prose", "runs", runId);
        if (answered.status === EXIT.ok) {
          // Recorded: the resume used it, or the run still holds it for the next resume.
          const used = asked(server).includes("Final (yes)");
          // Answers are recorded by the question's step key.
          const kept = existsSync(join(dir, "waiting.json"))
            ? Object.values(JSON.parse(readFileSync(join(dir, "waiting.json"), "utf8")).answers ?? {})
            : [];
          expect(used || kept.includes("yes"), `${answered.stdout}\n${resumed.stderr}`).toBe(true);
        } else {
          expect(answered.status, answered.stderr).toBe(EXIT.runStateUnusable);
          expect(answered.stderr).toContain("records an answer only while no process runs the run");
          expect(resumed.status, resumed.stderr).toBe(EXIT.waitingForInput);
        }
        expect([EXIT.ok, EXIT.waitingForInput, EXIT.runStateUnusable]).toContain(resumed.status);
      }
    },
  );
});
