/**
 * DBOS runs from the command line, against a real PostgreSQL: `prosec runs` lists them with the file
 * runs, `prosec run --resume ID` continues a cancelled one through DBOS's workflow management without
 * asking the model again for a finished step, and `prosec view` lists them. One worker, two submitted
 * runs (one finished, one cancelled while a branch's session waited for the model) and a file run.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { listRuns, startViewServer } from "../../src/view/server.js";
import { openRunStore } from "../../src/runs/open-run-store.js";
import {
  environment,
  fakeModel,
  prosec,
  startWorker,
  stopChildren,
  stopped,
  waitFor,
  withDatabase,
  type RunningWorker,
} from "../support/dbos.js";
import { askedText, reply, type FakeRequest } from "../support/fake-anthropic.js";
import type { FakeServer } from "../support/fake-anthropic.js";
import { launchBrowser } from "../support/chromium.js";
import { freshDatabase } from "../support/postgres.js";
import { temporaryFolder } from "../support/temp.js";

const PROGRAM = `input topic: "What to write about"

parallel:
  facts = session "Gather facts on {topic}"
  quotes = session "Gather quotes on {topic}"

output summary = session "Summarise {topic}"
  context: { facts, quotes }
`;

/** Answers every session at once, except the first request for the quotes on "slow": it never comes back. */
function model(request: FakeRequest) {
  const asked = askedText(request).trim().split("\n")[0]!;
  if (asked === "Gather quotes on slow" && !held) {
    held = true;
    return reply.hang();
  }
  return reply.text(`on it: ${asked}`, { usage: { input_tokens: 100_000, output_tokens: 10_000 } });
}
let held = false;

let server: FakeServer;
let database = "";
let cwd = "";
let env: NodeJS.ProcessEnv = {};
let worker: RunningWorker;
let running: { code: number | null; stderr: string };

/** The requests that asked for `prompt` so far. */
const asked = (prompt: string) => server.requests.filter((request) => askedText(request).startsWith(prompt)).length;

beforeAll(async () => {
  server = await fakeModel({ respond: model });
  database = await freshDatabase("runs_cli");
  env = environment(database, server);
  cwd = temporaryFolder("prosec-dbos-runs-");
  writeFileSync(join(cwd, "report.prose"), PROGRAM);
  writeFileSync(join(cwd, "runs.jsonl"), '{"topic": "tea"}\n{"topic": "slow"}\n');
  // A file run first: the oldest of the list.
  const fileRun = await prosec(["run", "report.prose", "-i", "topic=files", "--json"], cwd, {
    ...env,
    DBOS_SYSTEM_DATABASE_URL: "",
  });
  expect(fileRun.code, fileRun.stderr).toBe(EXIT.ok);
  worker = await startWorker("w1", cwd, env);
  const submitted = await prosec(["submit", "report.prose", "--inputs", "runs.jsonl", "--id", "batch"], cwd, env);
  expect([submitted.code, submitted.stdout]).toEqual([EXIT.ok, "batch-1\nbatch-2\n"]);
  await waitFor(() => asked("Gather quotes on slow") === 1, "the quotes on slow asked");
  // The facts on slow checkpointed before the cancel: the step a resume must not ask again.
  await withDatabase(database, (client) =>
    waitFor(async () => {
      const { rows } = await client.query(
        "SELECT 1 FROM dbos.operation_outputs WHERE output LIKE '%on it: Gather facts on slow%'",
      );
      return rows.length > 0;
    }, "the facts on slow checkpointed"),
  );
  // While its worker runs it, a run is not resumed.
  running = await prosec(["run", "--resume", "batch-2"], cwd, env);
  const finished = await prosec(["result", "batch-1", "--timeout", "60"], cwd, env);
  expect(finished.code, finished.stderr).toBe(EXIT.ok);
  const cancelled = await prosec(["cancel", "batch-2"], cwd, env);
  expect(cancelled.stdout).toBe("run batch-2 cancelled\n");
}, 120_000);

afterAll(async () => {
  if (worker !== undefined) await stopped(worker);
  await stopChildren();
});

interface ListedJson {
  readonly runId: string;
  readonly store: string;
  readonly status: string;
  readonly program: string | null;
  readonly version?: string | null;
  readonly steps: number;
  readonly cost: number | null;
}

/** The list with its first two entries (the batch runs, submitted together) in id order; the rest as listed. */
function batchFirst<T>(list: readonly T[]): T[] {
  const id = (entry: T): string => (Array.isArray(entry) ? String(entry[0]) : (entry as { runId: string }).runId);
  return [...list.slice(0, 2).sort((a, b) => id(a).localeCompare(id(b))), ...list.slice(2)];
}

describe("DBOS runs from the CLI", () => {
  it("prosec runs lists the DBOS runs with the file run, newest first, marked; --format json too", async () => {
    const table = await prosec(["runs"], cwd, env);
    expect(table.code, table.stderr).toBe(EXIT.ok);
    const [header, ...rows] = table.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^RUN +STORE +STATUS +PROGRAM +VERSION +STARTED +COST$/);
    // The two DBOS runs were submitted at once, so either may be the newer; the file run is the oldest.
    expect(batchFirst(rows.map((row) => row.split(/ +/).slice(0, 4)))).toEqual([
      ["batch-1", "dbos", "complete", "report.prose"],
      ["batch-2", "dbos", "cancelled", "report.prose"],
      [expect.stringMatching(/^\d{8}-\d{6}-[0-9a-f]{6}$/), "file", "complete", "report.prose"],
    ]);

    const json = await prosec(["runs", "--format", "json"], cwd, env);
    const runs = batchFirst(JSON.parse(json.stdout) as ListedJson[]);
    expect(runs.map((run) => [run.runId.slice(0, 7), run.store, run.status])).toEqual([
      ["batch-1", "dbos", "complete"],
      ["batch-2", "dbos", "cancelled"],
      [expect.any(String), "file", "complete"],
    ]);
    // Three sessions of 100k input and 10k output tokens at sonnet's list price ($3 and $15 a million): $0.45 each.
    expect(runs[0]).toMatchObject({
      program: "report",
      steps: 3,
      cost: 1.35,
      backendStatus: "SUCCESS",
      queue: "prosec",
    });
    expect(runs[0]!.version).toMatch(/^\w{8,}$/);
    // The cancelled run finished its facts branch; the quotes were in flight.
    expect(runs[1]).toMatchObject({ status: "cancelled", steps: 1, cost: 0.45 });
    expect(runs[2]).toMatchObject({ steps: 3, cost: 1.35 });
  });

  it("prosec view lists them too, and a DBOS run's page shows what the database holds", async () => {
    const store = openRunStore(cwd, { databaseUrl: database });
    const runs = batchFirst(await listRuns(store));
    expect(runs.map((run) => [run.runId.slice(0, 7), run.mark ?? "file", run.status, run.steps])).toEqual([
      ["batch-1", "DBOS", "complete", 3],
      ["batch-2", "DBOS", "cancelled", 1],
      [expect.any(String), "file", "complete", 3],
    ]);
    const view = await startViewServer(store);
    try {
      const page = await (await fetch(`${view.url}run/batch-1`)).text();
      expect(page).toContain('id="status">complete</span>');
      expect(page).toContain("on it: Summarise tea");
      const detail = (await (await fetch(`${view.url}api/run/batch-1`)).json()) as {
        outputs: { summary: string };
        steps: { kind: string; line: number }[];
      };
      expect(detail.outputs.summary).toBe("on it: Summarise tea");
      expect(detail.steps.map((step) => [step.kind, step.line]).sort()).toEqual([
        ["session", 4],
        ["session", 5],
        ["session", 7],
      ]);
      expect((await fetch(`${view.url}run/nothing-here`)).status).toBe(404);

      // In the browser: the list marks the DBOS runs, and a DBOS run's row leads to its page.
      const browser = await launchBrowser();
      try {
        const { page, errors } = await browser.newPage({ allowOrigin: view.url });
        await page.goto(view.url);
        const marks = await page
          .locator("#runs tbody tr")
          .evaluateAll((rows) => rows.map((row) => row.querySelector(".store")?.textContent ?? "file"));
        expect(marks).toEqual(["DBOS", "DBOS", "file"]);
        await page.locator('#runs tr[data-run="batch-2"] a').click();
        await page.waitForSelector("#status");
        expect(await page.locator("#status").textContent()).toBe("cancelled");
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    } finally {
      await view.close();
    }
  });

  it("prosec run --resume continues the cancelled run on the worker; finished steps are not asked again", async () => {
    const before = { facts: asked("Gather facts on slow"), quotes: asked("Gather quotes on slow") };
    expect(before).toEqual({ facts: 1, quotes: 1 });
    const resumed = await prosec(["run", "--resume", "batch-2", "--json"], cwd, env);
    expect(resumed.stderr).toContain('run batch-2 (cancelled) is back on queue "prosec": a worker of version');
    expect(resumed.stderr).toContain("after its 1 checkpointed step");
    expect([resumed.code, JSON.parse(resumed.stdout)]).toEqual([
      EXIT.ok,
      { type: "outputs", runId: "batch-2", outputs: { summary: "on it: Summarise slow" } },
    ]);
    // The facts were checkpointed: not asked again. The quotes were in flight at the cancel: asked once more.
    expect({
      facts: asked("Gather facts on slow"),
      quotes: asked("Gather quotes on slow"),
      summary: asked("Summarise slow"),
    }).toEqual({ facts: 1, quotes: 2, summary: 1 });
    const list = JSON.parse((await prosec(["runs", "--json"], cwd, env)).stdout) as ListedJson[];
    expect(list.find((run) => run.runId === "batch-2")).toMatchObject({ status: "complete", steps: 3 });
  });

  it("a finished run prints its outputs; a running, a queued one and an unknown id are refused with their codes", async () => {
    const finished = await prosec(["run", "--resume", "batch-1"], cwd, env);
    expect([finished.code, finished.stderr]).toEqual([
      EXIT.ok,
      "prosec: run batch-1 had finished: nothing to resume; its outputs follow\n",
    ]);
    expect(finished.stdout).toContain("on it: Summarise tea");
    // A file named is compiled: another program version than the run's is worth a warning.
    writeFileSync(join(cwd, "changed.prose"), PROGRAM.replace("Summarise", "Sum up"));
    const changed = await prosec(["run", "changed.prose", "--resume", "batch-1"], cwd, env);
    expect(changed.code).toBe(EXIT.ok);
    expect(changed.stderr).toMatch(
      /^prosec: warning: run batch-1 is of program version (\w+), the file given compiles to \w+: workers of \1 continue it\n/,
    );

    expect(running.code).toBe(EXIT.runStateUnusable);
    expect(running.stderr).toBe(
      "prosec: run batch-2 is running on worker w1: there is nothing to resume. prosec result batch-2 waits for it; prosec cancel batch-2 stops it\n",
    );

    const queued = await prosec(
      ["submit", "report.prose", "-i", "topic=later", "--queue", "idle", "--id", "q1"],
      cwd,
      env,
    );
    expect(queued.code).toBe(EXIT.ok);
    const refused = await prosec(["run", "--resume", "q1"], cwd, env);
    expect(refused.code).toBe(EXIT.runStateUnusable);
    expect(refused.stderr).toMatch(
      /^prosec: run q1 is queued \(ENQUEUED\) on queue "idle": there is nothing to resume/,
    );

    const unknown = await prosec(["run", "--resume", "no-such-run"], cwd, env);
    expect([unknown.code, unknown.stderr]).toEqual([
      EXIT.usage,
      "prosec: there is no run no-such-run in this database\n",
    ]);
    // Forking a DBOS run (fork-cli.test.ts) names a run that is there.
    const fork = await prosec(["run", "--resume", "no-such-run", "--from", "3"], cwd, env);
    expect([fork.code, fork.stderr]).toEqual([EXIT.usage, "prosec: there is no run no-such-run in this database\n"]);
  });

  it("an unreachable database or one without DBOS's tables is one line, never a stack trace", async () => {
    const unreachable = { ...env, DBOS_SYSTEM_DATABASE_URL: "postgresql://postgres@127.0.0.1:1/prosec" };
    const listed = await prosec(["runs"], cwd, unreachable);
    expect(listed.code).toBe(EXIT.network);
    // The file runs are still listed.
    expect(listed.stdout).toMatch(/ file +complete +report\.prose /);
    expect(listed.stderr).toMatch(
      /^prosec: cannot reach the database at postgresql:\/\/postgres@127\.0\.0\.1:1\/prosec [^\n]*\n$/,
    );
    const resume = await prosec(["run", "--resume", "batch-2"], cwd, unreachable);
    expect(resume.code).toBe(EXIT.network);
    expect(resume.stderr.split("\n")).toHaveLength(2);

    const empty = { ...env, DBOS_SYSTEM_DATABASE_URL: await freshDatabase("runs_cli_empty") };
    const none = await prosec(["runs", "--json"], cwd, empty);
    expect(none.code).toBe(EXIT.ok);
    expect((JSON.parse(none.stdout) as ListedJson[]).map((run) => run.store)).toEqual(["file"]);
    expect(none.stderr).toMatch(/^prosec: no DBOS runs: the database [^\n]* has no DBOS tables: [^\n]*\n$/);
    const missing = await prosec(["run", "--resume", "batch-2"], cwd, empty);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toMatch(/^prosec: the database [^\n]* has no DBOS tables: [^\n]*\n$/);
  });
});
