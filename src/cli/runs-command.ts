/**
 * `prosec runs`: the runs in `.prose/runs/` (status, program, start, cost), with the runs of the DBOS
 * database when DBOS_SYSTEM_DATABASE_URL names one, newest first; and `prosec runs prune`, which
 * removes the old file runs that no process is running.
 */
import { rmSync } from "node:fs";
import type { Argv } from "yargs";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isRunning, listRuns, runsFolder, type ListedRun } from "../run/run-list.js";
import { runSteps, type ShownStep } from "../run/run-steps.js";
import { RunStateError } from "../../runtime/errors.js";
import type { DbosRun } from "../worker/dbos-runs.js";
import { readWaiting } from "../../runtime/durable/run-control.js";
import { APPROVAL_PREFIX } from "../../runtime/tools/approvals.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { withFormat, type FormatArguments } from "./output-format.js";
import { configuredDatabaseUrl } from "../worker/database-url.js";

interface PruneArguments {
  readonly "older-than": string;
  readonly "dry-run": boolean;
}

const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `30d`, `12h`, `90m`, `2w` in milliseconds. */
export function parseAge(text: string): number {
  const match = /^(\d+)([mhdw])$/.exec(text.trim());
  if (match === null)
    throw new UsageError(
      `--older-than ${text}: write a number and a unit, e.g. 30d (m minutes, h hours, d days, w weeks)`,
    );
  return Number(match[1]) * UNITS[match[2]!]!;
}

export function runsCommand(yargs: Argv): Argv {
  return yargs.command(
    "runs",
    "List the runs in .prose/runs and, with DBOS_SYSTEM_DATABASE_URL set, in the DBOS database (status, program, start, cost); prune old ones",
    (command) =>
      command
        .command<FormatArguments & { readonly all: boolean }>(
          "$0",
          "list the runs, newest first (an eval's runs folded into one line)",
          (list) =>
            withFormat(list, "one object per run, in an array (an eval's runs too, with their evalId)").option("all", {
              type: "boolean",
              default: false,
              describe: "list every run of every eval too, not one line per eval",
            }),
          async (argv) => {
            process.exitCode = await printRuns(argv.format === "json", argv.all);
          },
        )
        .command<FormatArguments & { readonly id: string }>(
          "show <id>",
          "list a run's steps: key, line, kind, status, fingerprint, tokens, cost",
          (show) =>
            withFormat(
              show.positional("id", { type: "string", demandOption: true, describe: "the run id" }),
              "one object per step, in an array",
            ),
          async (argv) => {
            const dir = join(runsFolder(process.cwd()), argv.id);
            const url = configuredDatabaseUrl();
            if (!existsSync(dir) && url !== undefined) {
              process.exitCode = await showDbosRun(url, argv.id, argv.format === "json");
              return;
            }
            if (!existsSync(dir)) throw new UsageError(`runs show ${argv.id}: there is no such run in .prose/runs`);
            let steps: ShownStep[];
            try {
              steps = runSteps(dir);
            } catch (error) {
              if (!(error instanceof RunStateError)) throw error;
              process.stderr.write(`prosec: ${error.message}\n`);
              process.exitCode = EXIT.runStateUnusable;
              return;
            }
            if (argv.format === "json") process.stdout.write(`${JSON.stringify(steps, null, 2)}\n`);
            else {
              printSteps(steps);
              printPendingApprovals(dir, argv.id);
            }
            process.exitCode = EXIT.ok;
          },
        )
        .command<PruneArguments>(
          "prune",
          "remove the runs last written longer ago than --older-than, except those running now",
          (prune) =>
            prune
              .option("older-than", { type: "string", demandOption: true, describe: "an age such as 30d, 12h, 2w" })
              .option("dry-run", {
                type: "boolean",
                default: false,
                describe: "name the runs that would be removed; remove none",
              }),
          (argv) => {
            const cutoff = Date.now() - parseAge(argv["older-than"]);
            const old = listRuns(process.cwd()).filter((run) => run.lastWrittenMs < cutoff);
            let removed = 0;
            for (const run of old) {
              // Asked again just before removing: a run may have been resumed since the list was read.
              if (run.status === "running" || isRunning(run.dir)) continue;
              if (!argv["dry-run"]) rmSync(run.dir, { recursive: true, force: true });
              process.stdout.write(
                `${argv["dry-run"] ? "would remove" : "removed"} ${run.runId} (${run.status}, ${run.source ?? run.program ?? "?"})\n`,
              );
              removed++;
            }
            const running = old.length - removed;
            process.stdout.write(
              `${argv["dry-run"] ? "would remove" : "removed"} ${removed} run${removed === 1 ? "" : "s"}${running === 0 ? "" : `; kept ${running} running`}\n`,
            );
            process.exitCode = EXIT.ok;
          },
        ),
  );
}

function printSteps(steps: readonly ShownStep[]): void {
  if (steps.length === 0) {
    process.stdout.write("no steps recorded\n");
    return;
  }
  const rows = steps.map((step) => [
    step.key,
    step.line === null ? "-" : String(step.line),
    step.kind,
    step.turns !== undefined
      ? `${step.status} (${step.turns} turns)`
      : step.failure !== undefined
        ? `${step.status} (${step.failure})`
        : step.status,
    step.fingerprint ?? "-",
    String(step.tokens),
    step.cost === null ? "-" : cost(step.cost),
  ]);
  printColumns(["KEY", "LINE", "KIND", "STATUS", "FINGERPRINT", "TOKENS", "COST"], rows);
}

function printColumns(header: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  for (const row of [header, ...rows])
    process.stdout.write(
      `${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")}\n`,
    );
}

/** A file run, a DBOS run, or an eval's file runs folded into one line, as listed. */
type AnyRun =
  | { readonly store: "file"; readonly run: ListedRun }
  | { readonly store: "dbos"; readonly run: DbosRun }
  | { readonly store: "eval"; readonly run: FoldedEval };

/** An eval's runs as one line of the table. */
interface FoldedEval {
  /** The eval's id. */
  readonly runId: string;
  /** `eval: 3/4 runs complete`. */
  readonly status: string;
  readonly source?: string;
  readonly program?: string;
  readonly startedAt?: string;
  readonly cost: number | undefined;
  readonly lastWrittenMs: number;
}

/**
 * Prints the file runs and the database's, newest first; the exit code. The file runs are printed
 * even when the database cannot be read, which is then said in one line (exit 8 when unreachable).
 */
async function printRuns(json: boolean, all: boolean): Promise<ExitCode> {
  const listed = listRuns(process.cwd());
  const files: AnyRun[] =
    json || all
      ? listed.map((run) => ({ store: "file", run }))
      : [
          ...listed.filter((run) => run.evalId === undefined).map((run): AnyRun => ({ store: "file", run })),
          ...foldEvals(listed).map((run): AnyRun => ({ store: "eval", run })),
        ];
  const url = configuredDatabaseUrl();
  const database = url ? await databaseRuns(url) : { runs: [], code: EXIT.ok };
  const runs = [...files, ...database.runs.map((run): AnyRun => ({ store: "dbos", run }))].sort(
    (a, b) => startedMs(b) - startedMs(a) || (a.run.runId < b.run.runId ? 1 : -1),
  );
  if (json) process.stdout.write(`${JSON.stringify(runs.map(asJson), null, 2)}\n`);
  else printTable(runs, url ? "in .prose/runs or the DBOS database" : "in .prose/runs", Boolean(url));
  if (database.problem !== undefined) process.stderr.write(`prosec: ${database.problem}\n`);
  return database.code;
}

/**
 * An eval's runs as one line: the eval's id, how many of its runs are complete, failed or stopped,
 * their cost together (`prosec runs --all` lists them one by one).
 */
function foldEvals(runs: readonly ListedRun[]): FoldedEval[] {
  const evals = new Map<string, ListedRun[]>();
  for (const run of runs) if (run.evalId !== undefined) evals.set(run.evalId, [...(evals.get(run.evalId) ?? []), run]);
  return [...evals].map(([evalId, members]) => {
    const complete = members.filter((run) => run.status === "complete").length;
    const costs = members.flatMap((run) => (run.cost === undefined ? [] : [run.cost]));
    const first = members[0]!;
    return {
      runId: evalId,
      status: `eval: ${complete}/${members.length} runs complete`,
      ...(first.source === undefined ? {} : { source: first.source }),
      ...(first.program === undefined ? {} : { program: first.program }),
      ...(first.startedAt === undefined ? {} : { startedAt: first.startedAt }),
      cost: costs.length === 0 ? undefined : costs.reduce((sum, cost) => sum + cost, 0),
      lastWrittenMs: Math.max(...members.map((run) => run.lastWrittenMs)),
    };
  });
}

async function databaseRuns(url: string): Promise<{ runs: DbosRun[]; code: ExitCode; problem?: string }> {
  const { listDbosRuns } = await import("../worker/dbos-runs.js");
  const { withClient } = await import("../worker/client.js");
  const { DatabaseUnreachable, NoRunsDatabase } = await import("../worker/database.js");
  try {
    return { runs: await withClient(url, listDbosRuns), code: EXIT.ok };
  } catch (error) {
    if (error instanceof DatabaseUnreachable) return { runs: [], code: EXIT.network, problem: error.message };
    // A database no run was submitted to holds none: nothing is wrong.
    if (error instanceof NoRunsDatabase) return { runs: [], code: EXIT.ok, problem: `no DBOS runs: ${error.message}` };
    throw error;
  }
}

function startedMs({ store, run }: AnyRun): number {
  const started = Date.parse(run.startedAt ?? "");
  if (!Number.isNaN(started)) return started;
  return store === "dbos" ? 0 : run.lastWrittenMs;
}

function printTable(runs: readonly AnyRun[], where: string, withDatabase: boolean): void {
  if (runs.length === 0) {
    process.stdout.write(`no runs ${where}\n`);
    return;
  }
  const rows = runs.map(({ store, run }) => [
    run.runId,
    ...(withDatabase ? [store] : []),
    run.status,
    run.source ?? run.program ?? "?",
    ...(withDatabase ? [store === "dbos" ? shortVersion(run.version) : "-"] : []),
    started(run.startedAt),
    cost(run.cost),
  ]);
  const header = withDatabase
    ? ["RUN", "STORE", "STATUS", "PROGRAM", "VERSION", "STARTED", "COST"]
    : ["RUN", "STATUS", "PROGRAM", "STARTED", "COST"];
  printColumns(header, rows);
}

/** A program version (a code hash) as short as a commit's. */
function shortVersion(version: string | undefined): string {
  return version === undefined ? "?" : version.slice(0, 12);
}

function started(iso: string | undefined): string {
  if (iso === undefined) return "?";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "?";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

function cost(dollars: number | undefined): string {
  return dollars === undefined ? "-" : `$${dollars.toFixed(dollars < 1 ? 4 : 2)}`;
}

function asJson(entry: AnyRun): object {
  if (entry.store === "dbos") {
    const { run } = entry;
    return {
      runId: run.runId,
      store: "dbos",
      status: run.status,
      dbosStatus: run.dbosStatus,
      program: run.program ?? null,
      source: run.source ?? null,
      version: run.version ?? null,
      queue: run.queue ?? null,
      worker: run.worker ?? null,
      startedAt: run.startedAt,
      updatedAt: run.updatedAt ?? null,
      steps: run.steps,
      cost: run.cost ?? null,
    };
  }
  if (entry.store === "eval") {
    const { run } = entry;
    return { evalId: run.runId, store: "eval", status: run.status, source: run.source ?? null, cost: run.cost ?? null };
  }
  const { run } = entry;
  return {
    runId: run.runId,
    store: "file",
    status: run.status,
    program: run.program ?? null,
    source: run.source ?? null,
    startedAt: run.startedAt ?? null,
    lastWritten: new Date(run.lastWrittenMs).toISOString(),
    steps: run.steps,
    cost: run.cost ?? null,
    ...(run.evalId === undefined ? {} : { evalId: run.evalId }),
  };
}

/**
 * `runs show` for a run in the DBOS database: its checkpointed steps (key, line, kind, tokens, cost)
 * and what it waits for, as `prosec view` shows them.
 */
async function showDbosRun(url: string, runId: string, json: boolean): Promise<ExitCode> {
  const { readDbosRun } = await import("../view/dbos-view.js");
  const detail = await readDbosRun(url, runId);
  if (detail === undefined)
    throw new UsageError(
      `runs show ${runId}: there is no such run in .prose/runs, nor in the DBOS database (or it cannot be reached)`,
    );
  if (json) {
    process.stdout.write(`${JSON.stringify(detail.steps, null, 2)}\n`);
    return EXIT.ok;
  }
  if (detail.steps.length === 0) process.stdout.write("no steps recorded\n");
  else
    printColumns(
      ["KEY", "LINE", "KIND", "TOKENS", "COST"],
      detail.steps.map((step) => [
        step.key,
        step.line === 0 ? "-" : String(step.line),
        step.kind,
        String(step.tokens),
        step.cost === undefined ? "-" : cost(step.cost),
      ]),
    );
  for (const line of detail.waitingFor ?? []) process.stdout.write(`waiting ${line}\n`);
  return EXIT.ok;
}

/** The tool calls the run waits for a person to approve (docs/tools.md, "Approvals"), one a line. */
function printPendingApprovals(dir: string, runId: string): void {
  const pending = (readWaiting(dir)?.questions ?? []).filter((question) => question.name.startsWith(APPROVAL_PREFIX));
  for (const question of pending)
    process.stdout.write(
      `waiting for approval: ${question.name.slice(APPROVAL_PREFIX.length)}: ${question.prompt} (prosec approve ${runId} ${question.name.slice(APPROVAL_PREFIX.length)}, or prosec deny)\n`,
    );
}
