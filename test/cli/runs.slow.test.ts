/**
 * `prosec runs` and `prosec runs prune`, on run folders written by a real `prosec run` (against the
 * fake Messages API), copied and aged to stand for runs that finished, failed, died or still run.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { prosec } from "../support/cli.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));
const fixtures = fileURLToPath(new URL("../fixtures/view-runs/", import.meta.url));
const DAY = 86_400_000;

/** A run id like the runtime's, for a copy of the real run. */
const copyId = (n: number) => `20250101-00000${n}-00000${n}`;

let server: FakeServer;
let project = "";
let realRun = "";

function runsDir(): string {
  return join(project, ".prose", "runs");
}

/** A copy of the real run as another run, with its state.md status, lock and age set. */
function fabricate(
  n: number,
  options: { status?: string; lockPid?: number; withoutManifest?: boolean; ageDays: number },
): string {
  const runId = copyId(n);
  const dir = join(runsDir(), runId);
  cpSync(join(runsDir(), realRun), dir, { recursive: true });
  if (options.status !== undefined)
    writeFileSync(
      join(dir, "state.md"),
      readFileSync(join(dir, "state.md"), "utf8").replace(/^status: \w+$/m, `status: ${options.status}`),
    );
  if (options.lockPid !== undefined) writeFileSync(join(dir, ".lock"), `${options.lockPid}\n`);
  if (options.withoutManifest === true) rmSync(join(dir, "run.json"));
  const when = new Date(Date.now() - options.ageDays * DAY);
  for (const file of ["run.json", "journal.jsonl", "state.md", ""])
    if (existsSync(join(dir, file))) utimesSync(join(dir, file), when, when);
  return runId;
}

beforeAll(async () => {
  server = await startFakeAnthropic({
    respond: () => ({ ...reply.text("hello"), usage: { input_tokens: 1_000_000, output_tokens: 100_000 } }),
  });
  project = temporaryFolder("prosec-runs-");
  writeFileSync(join(project, "hello.prose"), 'session "Say hello"\n');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "run", "hello.prose"], {
      cwd: project,
      env: { ...process.env, ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url, NO_COLOR: "1" },
      stdio: "ignore",
    });
    child.on("error", reject);
    child.on("close", (code) => (code === EXIT.ok ? resolve() : reject(new Error(`prosec run exited ${code}`))));
  });
  realRun = readdirSync(runsDir())[0]!;
});

afterAll(async () => {
  await server.close();
});

describe("prosec runs", () => {
  it("lists each run: id, status, program, start and cost, newest first", () => {
    const list = prosec(["runs"], project);
    expect(list.status).toBe(EXIT.ok);
    const [header, row, ...rest] = list.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^RUN +STATUS +PROGRAM +STARTED +COST$/);
    expect(rest).toEqual([]);
    // 1M input + 100k output tokens of a sonnet model: $3 + $1.50.
    expect(row).toMatch(
      new RegExp(`^${realRun} +complete +hello\\.prose +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +\\$4\\.50$`),
    );
  });

  it("tells running, interrupted, failed and damaged runs apart; --format json gives the same", () => {
    fabricate(1, { status: "failed", ageDays: 40 });
    fabricate(2, { status: "running", lockPid: process.pid, ageDays: 40 });
    // A process that died mid-run leaves `running` and a lock naming a pid that no longer exists.
    fabricate(3, { status: "running", lockPid: 2 ** 22 + 17, ageDays: 40 });
    fabricate(4, { withoutManifest: true, ageDays: 40 });
    const json = prosec(["runs", "--format", "json"], project);
    expect(json.status).toBe(EXIT.ok);
    const runs = JSON.parse(json.stdout) as { runId: string; status: string; steps: number; cost: number | null }[];
    // Newest first by start (the copies keep the real run's run.json, so ties go by id, the later first);
    // a run without run.json by when it was last written.
    expect(runs.map((run) => [run.runId, run.status])).toEqual([
      [realRun, "complete"],
      [copyId(3), "interrupted"],
      [copyId(2), "running"],
      [copyId(1), "failed"],
      [copyId(4), "damaged"],
    ]);
    expect(runs[0]).toMatchObject({ store: "file", steps: 1, cost: 4.5 });
    expect(prosec(["runs", "--json"], project).stdout).toBe(json.stdout);
  });

  it("prune removes the old runs that no live process holds, and says which; --dry-run removes none", () => {
    const dry = prosec(["runs", "prune", "--older-than", "30d", "--dry-run"], project);
    expect(dry.status).toBe(EXIT.ok);
    expect(dry.stdout).toContain(`would remove ${copyId(1)} (failed, hello.prose)`);
    expect(dry.stdout.trimEnd().split("\n").pop()).toBe("would remove 3 runs; kept 1 running");
    expect(readdirSync(runsDir())).toHaveLength(5);

    const pruned = prosec(["runs", "prune", "--older-than", "30d"], project);
    expect(pruned.status).toBe(EXIT.ok);
    expect(pruned.stdout.trimEnd().split("\n").pop()).toBe("removed 3 runs; kept 1 running");
    expect(readdirSync(runsDir()).sort()).toEqual([copyId(2), realRun]);
    expect(existsSync(join(runsDir(), realRun, "journal.jsonl"))).toBe(true);
  });

  it("an age it cannot read is a usage error", () => {
    const result = prosec(["runs", "prune", "--older-than", "a month"], project);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr).toContain("--older-than a month: write a number and a unit, e.g. 30d");
  });

  it("no runs at all is said so", () => {
    const empty = temporaryFolder("prosec-no-runs-");
    expect(prosec(["runs"], empty).stdout).toBe("no runs in .prose/runs\n");
    expect(prosec(["runs", "prune", "--older-than", "1d"], empty).stdout).toBe("removed 0 runs\n");
  });

  it("with a database it cannot reach, says where it looked, not that the database holds none", () => {
    const empty = temporaryFolder("prosec-no-runs-");
    const listed = prosec(["runs"], empty, { DBOS_SYSTEM_DATABASE_URL: "postgresql://postgres@127.0.0.1:1/prosec" });
    expect(listed.status).toBe(EXIT.network);
    expect(listed.stdout).toBe("no runs in .prose/runs\n");
    expect(listed.stderr).toMatch(
      /^prosec: cannot reach the database at postgresql:\/\/postgres@127\.0\.0\.1:1\/prosec /,
    );
  });

  it("a run whose journal was changed by hand is damaged and has no cost; runs show of it exits 7 naming the line", () => {
    const runId = fabricate(5, { ageDays: 0 });
    const journal = join(runsDir(), runId, "journal.jsonl");
    writeFileSync(journal, readFileSync(journal, "utf8").replace('"value":"hello"', '"value":"HELLO"'));
    const json = prosec(["runs", "--format", "json"], project);
    const listed = (JSON.parse(json.stdout) as { runId: string; status: string; cost: number | null }[]).find(
      (run) => run.runId === runId,
    );
    expect(listed).toMatchObject({ status: "damaged", cost: null });
    const shown = prosec(["runs", "show", runId], project);
    expect(shown.status, shown.stderr).toBe(EXIT.runStateUnusable);
    expect(shown.stderr).toContain(
      "journal.jsonl is damaged at line 1 of 1: the record was changed after prosec wrote it",
    );
    expect(shown.stderr).not.toContain("bug in prosec");
  });

  it("prosec cancel of a finished run says it has finished and leaves it as it was", () => {
    const cancelled = prosec(["cancel", realRun], project, { DBOS_SYSTEM_DATABASE_URL: "" });
    expect(cancelled.status).toBe(EXIT.usage);
    expect(cancelled.stderr).toBe(`prosec: run ${realRun} has finished; there is nothing to cancel\n`);
    expect(existsSync(join(runsDir(), realRun, "cancelled"))).toBe(false);
  });

  it("a waiting run is listed as waiting, runs show says what it waits for, and once cancelled it is listed so", () => {
    const cwd = temporaryFolder("prosec-runs-waiting-");
    const runId = "20261126-064708-5d5635";
    cpSync(join(fixtures, "waiting", ".prose", "runs", runId), join(cwd, ".prose", "runs", runId), { recursive: true });
    const status = (): string =>
      (JSON.parse(prosec(["runs", "--format", "json"], cwd).stdout) as { status: string }[])[0]!.status;
    expect(status()).toBe("waiting");
    const shown = prosec(["runs", "show", runId], cwd);
    expect(shown.status, shown.stderr).toBe(EXIT.ok);
    expect(shown.stdout).toContain(
      `waiting for input "audience" (Who is the talk for?): prosec answer ${runId} audience=..., then prosec run --resume ${runId}\n`,
    );
    expect(prosec(["cancel", runId], cwd, { DBOS_SYSTEM_DATABASE_URL: "" }).stdout).toBe(`run ${runId} cancelled\n`);
    expect(status()).toBe("cancelled");
  });
});
