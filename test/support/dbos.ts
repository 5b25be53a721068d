/**
 * The DBOS suites' side of the CLI: `prosec worker` processes, `submit` and `result` as a user runs
 * them, against the real SDK and the fake Messages API, and what the database holds. Every process
 * a test starts is listed in `children` and killed by `stopChildren` after each test.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { expect } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { bin } from "./cli.js";
import { deterministicModel, identity } from "./deterministic-model.js";
import { askedText, startFakeAnthropic, type FakeServer, type Responder } from "./fake-anthropic.js";
import { temporaryFolder } from "./temp.js";
import { waitFor } from "./wait.js";

export { waitFor };

export const TEST_API_KEY = "sk-ant-test-dbos-0000000000";

/** Two parallel blocks (child workflows), a judged loop and six sessions: a run with many steps. */
export const REPORT_PROGRAM = `input topic: "What to write about"

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

/** The report program's model: the draft is final after round 1. */
export const reportModel = deterministicModel((question) => question.includes("round 1"));

/**
 * The report model, holding every run's last session ("Assemble the report") until `open()`: a
 * worker killed before then has all its runs unfinished, however fast or slow the machine.
 */
export function heldReportModel(): { readonly respond: Responder; readonly open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    open,
    respond: async (request) => {
      if (askedText(request).includes("Assemble the report")) await opened;
      return reportModel(request);
    },
  };
}

export interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const children: ChildProcess[] = [];
const servers: FakeServer[] = [];

/** Kills what a test left running and closes its fake servers (an `afterEach`). */
export async function stopChildren(): Promise<void> {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) {
      // A stopped (SIGSTOP) process does not act on SIGKILL until it runs again.
      child.kill("SIGCONT");
      child.kill("SIGKILL");
    }
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

/** A fake Messages API closed by `stopChildren`. */
export async function fakeModel(...options: Parameters<typeof startFakeAnthropic>): Promise<FakeServer> {
  const server = await startFakeAnthropic(...options);
  servers.push(server);
  return server;
}

export function environment(database: string, server: FakeServer): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DBOS_SYSTEM_DATABASE_URL: database,
    ANTHROPIC_API_KEY: TEST_API_KEY,
    ANTHROPIC_BASE_URL: server.url,
    NO_COLOR: "1",
  };
}

/** Runs `prosec`; `command` is the bin/prosec of another installation (test/dbos/upgrade.test.ts). */
export function prosec(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  command: string = bin,
): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [command, ...args], { cwd, env });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RunningWorker {
  readonly id: string;
  readonly process: ChildProcess;
  readonly log: () => string;
  /** Resolves with the exit code when the worker exits (null when a signal ended it). */
  readonly exited: Promise<number | null>;
}

export interface WorkerOptions {
  readonly adoptAfterSeconds?: number;
  readonly concurrency?: number;
  readonly file?: string;
  readonly extra?: readonly string[];
  /** The bin/prosec of another installation (default: this checkout's). */
  readonly bin?: string;
}

/** Starts `prosec worker` and resolves once it serves its queue. */
export function startWorker(
  id: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  options: WorkerOptions = {},
): Promise<RunningWorker> {
  const args = [
    options.bin ?? bin,
    "worker",
    options.file ?? "report.prose",
    "--id",
    id,
    "--concurrency",
    String(options.concurrency ?? 2),
    "--adopt-after",
    String(options.adoptAfterSeconds ?? 2),
    ...(options.extra ?? []),
  ];
  const child = spawn(process.execPath, args, { cwd, env });
  children.push(child);
  let log = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes(`worker ${id}:`)) resolve({ id, process: child, log: () => log, exited });
    });
    child.stdout.on("data", (chunk: Buffer) => (log += chunk.toString()));
    void exited.then((code) => reject(new Error(`worker ${id} exited with ${code}:\n${log}`)));
  });
}

/** Stops a worker as Ctrl-C does; its exit code. */
export function stopped(worker: RunningWorker, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
  worker.process.kill(signal);
  return worker.exited;
}

export async function killed(worker: RunningWorker): Promise<void> {
  worker.process.kill("SIGKILL");
  await worker.exited;
}

/** A temporary folder holding `report.prose`. */
export function folder(program = REPORT_PROGRAM): string {
  const cwd = temporaryFolder("prosec-dbos-");
  writeFileSync(join(cwd, "report.prose"), program);
  return cwd;
}

export async function submit(
  cwd: string,
  env: NodeJS.ProcessEnv,
  topic: string,
  id: string,
  ...inputs: string[]
): Promise<void> {
  const submitted = await prosec(
    ["submit", "report.prose", "-i", `topic=${topic}`, ...inputs.flatMap((input) => ["-i", input]), "--id", id],
    cwd,
    env,
  );
  expect(submitted.stderr).toBe("");
  expect(submitted.stdout.trim()).toBe(id);
}

export async function result(cwd: string, env: NodeJS.ProcessEnv, id: string): Promise<unknown> {
  const exit = await prosec(["result", id, "--json", "--timeout", "120"], cwd, env);
  expect(exit.stderr).toBe("");
  expect(exit.code).toBe(EXIT.ok);
  return (JSON.parse(exit.stdout) as { outputs: unknown }).outputs;
}

/** What `prosec run` (the file backend) outputs for `topic`, with a model of its own. */
export async function uninterrupted(cwd: string, topic: string): Promise<unknown> {
  const server = await fakeModel({ respond: reportModel });
  const exit = await prosec(["run", "report.prose", "-i", `topic=${topic}`, "--json"], cwd, {
    ...process.env,
    ANTHROPIC_API_KEY: TEST_API_KEY,
    ANTHROPIC_BASE_URL: server.url,
  });
  expect(exit.code).toBe(EXIT.ok);
  const last = exit.stdout.trim().split("\n").at(-1)!;
  return (JSON.parse(last) as { outputs: unknown }).outputs;
}

/** Runs `body` with a connection to `database`. */
export async function withDatabase<T>(database: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** The identities (see deterministic-model.ts) of every step checkpointed in the database so far. */
export function checkpointedIdentities(database: string): Promise<Set<string>> {
  return withDatabase(database, async (client) => {
    const { rows } = await client.query<{ output: string | null }>("SELECT output FROM dbos.operation_outputs");
    const found = new Set<string>();
    for (const row of rows)
      for (const match of (row.output ?? "").matchAll(/\[([0-9a-f]{12})\]/g)) found.add(match[1]!);
    return found;
  });
}

/** Resolves once a run on one of `workers` has `steps` checkpoints and is not finished; with that worker's id. */
export function waitForRunsUnderWay(database: string, workers: readonly string[], steps = 3): Promise<string> {
  return withDatabase(database, async (client) => {
    let busy = "";
    await waitFor(
      async () => {
        const { rows } = await client.query<{ executor_id: string }>(
          `SELECT DISTINCT executor_id FROM dbos.workflow_status run
           WHERE run.name = 'prosec.run' AND run.status = 'PENDING' AND run.executor_id = ANY($1)
             AND (SELECT count(*) FROM dbos.operation_outputs step WHERE step.workflow_uuid = run.workflow_uuid) >= $2`,
          [workers, steps],
        );
        busy = rows[0]?.executor_id ?? "";
        return rows.length > 0;
      },
      `a run under way on ${workers.join(" or ")}`,
    );
    return busy;
  });
}

/** Requests after `from` that ask again for a step checkpointed before: there must be none. */
export function repeatedAfter(server: FakeServer, from: number, finished: ReadonlySet<string>): string[] {
  return server.requests
    .slice(from)
    .map((request) => identity(request))
    .filter((id) => finished.has(id));
}

/** How many times the most-asked request was asked. */
export function mostAsked(server: FakeServer): number {
  const counts = new Map<string, number>();
  for (const request of server.requests) counts.set(identity(request), (counts.get(identity(request)) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}
