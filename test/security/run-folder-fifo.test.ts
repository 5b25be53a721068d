/**
 * A run folder from someone else (an archive, a shared folder) may hold a FIFO or a link to
 * `/dev/zero` where prosec expects `state.md`, `run.json` or the journal. A plain read of a FIFO
 * blocks until something writes to it, and `/dev/zero` never ends: `prosec runs`, the view's list,
 * `--resume`, `runs show`, `answer`, `approve` and `cancel` hung or ran out of memory. Now the list
 * flags such a run as damaged and goes on; the commands on one run refuse it (exit 7). Every command
 * runs in a child process with a timeout, so a hang fails the test instead of hanging it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRunFile, RunStateError } from "../../runtime/stored-runs.js";
import { RUN_FILE_LIMIT } from "../../runtime/durable/run-file.js";
import { EXIT } from "../../src/exit-codes.js";
import { bin, repositoryRoot, type CliResult } from "../support/cli.js";
import { runManifest } from "../support/run-manifest.js";
import { temporaryFolder } from "../support/temp.js";

const GOOD = "20260101-000000-aaaaaa";
const FIFO = "20260101-000001-bbbbbb";
const ZERO = "20260101-000002-cccccc";

/** A project with a sound run, a run whose state.md is a FIFO and one whose journal leads to /dev/zero. */
function project(): string {
  const cwd = temporaryFolder("prosec-run-fifo-");
  writeFileSync(join(cwd, "p.prose"), 'let first = session "One"\noutput answer = first\n');
  for (const runId of [GOOD, FIFO, ZERO]) {
    const dir = join(cwd, ".prose", "runs", runId);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "run.json"), runManifest({ runId }));
    if (runId !== FIFO) writeFileSync(join(dir, "state.md"), "status: failed\n");
    if (runId !== ZERO) writeFileSync(join(dir, "journal.jsonl"), "");
  }
  // state.md a FIFO nothing writes to: the file every listing reads.
  execFileSync("mkfifo", [join(cwd, ".prose", "runs", FIFO, "state.md")]);
  symlinkSync("/dev/zero", join(cwd, ".prose", "runs", ZERO, "journal.jsonl"));
  return cwd;
}

/** Runs the built CLI; a child still running after 20 s is killed, and `signal` then says so. */
function prosecWithin(args: readonly string[], cwd: string): CliResult & { signal: NodeJS.Signals | null } {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
    timeout: 20_000,
    killSignal: "SIGKILL",
  });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

describe("a run folder holding a FIFO or a link to /dev/zero", () => {
  it("is flagged damaged by prosec runs, which lists the other runs", () => {
    const cwd = project();
    const listed = prosecWithin(["runs", "--format", "json"], cwd);
    expect(listed.signal).toBeNull();
    expect(listed.status).toBe(0);
    const runs = JSON.parse(listed.stdout) as { runId: string; status: string }[];
    expect(Object.fromEntries(runs.map((run) => [run.runId, run.status]))).toEqual({
      [GOOD]: "failed",
      [FIFO]: "damaged",
      [ZERO]: "damaged",
    });
  });

  it("is flagged damaged in the view's list, which lists the other runs", () => {
    const cwd = project();
    const script = `
      const { startViewServer } = await import(${JSON.stringify(join(repositoryRoot, "dist/src/view/server.js"))});
      const { FolderRuns } = await import(${JSON.stringify(join(repositoryRoot, "dist/src/runs/folder-runs.js"))});
      const server = await startViewServer(new FolderRuns(process.cwd()));
      try {
        const response = await fetch(server.url + "api/runs");
        process.stdout.write(JSON.stringify({ status: response.status, body: await response.text() }));
      } finally {
        await server.close();
      }`;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd,
      encoding: "utf8",
      timeout: 20_000,
      killSignal: "SIGKILL",
    });
    expect(result.signal).toBeNull();
    expect(result.stderr).toBe("");
    const { status, body } = JSON.parse(result.stdout) as { status: number; body: string };
    expect(status).toBe(200);
    expect(body).toContain(GOOD);
    expect(body).toMatch(new RegExp(`"${FIFO}"[^}]*"damaged"`));
    expect(body).toMatch(new RegExp(`"${ZERO}"[^}]*"damaged"`));
  });

  for (const [runId, what] of [
    [FIFO, "a FIFO"],
    [ZERO, "symbolic link"],
  ] as const)
    it(`is refused with exit 7 by --resume, runs show, answer, approve and cancel (${what})`, () => {
      const cwd = project();
      for (const args of [
        ["run", "p.prose", "--resume", runId],
        ["runs", "show", runId],
        ["answer", runId, "name=x"],
        ["approve", runId, "--all"],
        ["cancel", runId],
      ]) {
        const result = prosecWithin(args, cwd);
        expect({ args, signal: result.signal }).toEqual({ args, signal: null });
        expect({ args, status: result.status }).toEqual({ args, status: EXIT.runStateUnusable });
        expect(result.stderr).toContain(what);
      }
    });
});

describe("a run file", () => {
  it("is read when it is a regular file, refused when it is absurdly large", () => {
    const dir = temporaryFolder("prosec-run-file-");
    writeFileSync(join(dir, "state.md"), "status: complete\n");
    expect(readRunFile(join(dir, "state.md"))).toBe("status: complete\n");
    // Sparse: no disk is used, but a plain read would allocate every byte.
    writeFileSync(join(dir, "journal.jsonl"), "");
    truncateSync(join(dir, "journal.jsonl"), RUN_FILE_LIMIT + 1);
    expect(() => readRunFile(join(dir, "journal.jsonl"))).toThrow(RunStateError);
    expect(() => readRunFile(join(dir, "journal.jsonl"))).toThrow(/more than the \d+ a run file may hold/);
    expect(() => readRunFile(join(dir, "missing.md"))).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});
