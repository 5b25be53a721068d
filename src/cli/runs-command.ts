/**
 * `prosec runs`: the runs of the store (src/runs/open-run-store.ts: `.prose/runs/`, with the runs of
 * the DBOS database when DBOS_SYSTEM_DATABASE_URL names one), newest first, with status, program,
 * start and cost; `runs show` lists one run's steps; `prosec runs prune` removes the old folder runs
 * that no process is running.
 */
import { withRunAbove } from "../runs/runs-above.js";
import type { Argv } from "yargs";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { openRunStore, reportingStore } from "../runs/open-run-store.js";
import { newestFirst, type FoundRun, type StoredRun, type StoredStep } from "../runs/run-store.js";
import { terminalText } from "../printable.js";
import { withFormat, type FormatArguments } from "./output-format.js";
import { jsonText } from "../json-text.js";

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
            process.exitCode = await reportingStore(() => showRun(argv.id, argv.format === "json"));
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
          async (argv) => {
            const dryRun = argv["dry-run"];
            const cutoff = Date.now() - parseAge(argv["older-than"]);
            const { removed, running } = await openRunStore(process.cwd()).prune(cutoff, dryRun);
            for (const run of removed)
              process.stdout.write(
                `${dryRun ? "would remove" : "removed"} ${run.runId} (${run.status}, ${run.source ?? run.program ?? "?"})\n`,
              );
            process.stdout.write(
              `${dryRun ? "would remove" : "removed"} ${removed.length} run${removed.length === 1 ? "" : "s"}${running.length === 0 ? "" : `; kept ${running.length} running`}\n`,
            );
            process.exitCode = EXIT.ok;
          },
        ),
  );
}

function printSteps(steps: readonly StoredStep[]): void {
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
  // A cell may come from a run's files (a program's name, an input's prompt): none prints an escape sequence.
  const shown = rows.map((row) => row.map(terminalText));
  const widths = header.map((title, column) => Math.max(title.length, ...shown.map((row) => row[column]!.length)));
  for (const row of [header, ...shown])
    process.stdout.write(
      `${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")}\n`,
    );
}

/** A run as listed, or an eval's runs folded into one line, whose status says how many are complete. */
interface Listed {
  readonly run: StoredRun;
  /** For an eval's line: `eval: 3/4 runs complete`. */
  readonly evalStatus?: string;
}

/**
 * Prints the store's runs, newest first; the exit code. The runs that could be read are printed even
 * when part of the store could not be, which is then said in one line (exit 8 when unreachable).
 */
async function printRuns(json: boolean, all: boolean): Promise<ExitCode> {
  const listing = await openRunStore(process.cwd()).list();
  const runs: Listed[] =
    json || all ? listing.runs.map((run) => ({ run })) : [...unfolded(listing.runs), ...foldEvals(listing.runs)];
  if (!(json || all)) {
    const order = newestFirst(runs.map((line) => line.run));
    runs.sort((a, b) => order.indexOf(a.run) - order.indexOf(b.run));
  }
  if (json) process.stdout.write(`${jsonText(runs.map(asJson), 2)}\n`);
  else printTable(runs, listing.where, listing.stores.length > 1);
  if (listing.problem !== undefined) process.stderr.write(`prosec: ${listing.problem.message}\n`);
  return listing.problem?.code ?? EXIT.ok;
}

/**
 * An eval's runs as one line: the eval's id, how many of its runs are complete, failed or stopped,
 * their cost together (`prosec runs --all` lists them one by one).
 */
function foldEvals(runs: readonly StoredRun[]): Listed[] {
  const evals = new Map<string, StoredRun[]>();
  for (const run of runs) if (run.evalId !== undefined) evals.set(run.evalId, [...(evals.get(run.evalId) ?? []), run]);
  return [...evals].map(([evalId, members]) => {
    const complete = members.filter((run) => run.status === "complete").length;
    const costs = members.flatMap((run) => (run.cost === undefined ? [] : [run.cost]));
    // Listed newest first: the eval started with its oldest run.
    const first = members.at(-1)!;
    const updated = Math.max(...members.map((run) => Date.parse(run.updatedAt ?? "") || 0));
    const run: StoredRun = {
      runId: evalId,
      store: first.store,
      status: first.status,
      ...(first.source === undefined ? {} : { source: first.source }),
      ...(first.program === undefined ? {} : { program: first.program }),
      ...(first.startedAt === undefined ? {} : { startedAt: first.startedAt }),
      ...(updated === 0 ? {} : { updatedAt: new Date(updated).toISOString() }),
      steps: members.reduce((sum, run) => sum + run.steps, 0),
      tokens: members.reduce((sum, run) => sum + run.tokens, 0),
      cost: costs.length === 0 ? undefined : costs.reduce((sum, cost) => sum + cost, 0),
    };
    return { run, evalStatus: `eval: ${complete}/${members.length} runs complete` };
  });
}

/** The runs that are no eval's case, each a line. */
function unfolded(runs: readonly StoredRun[]): Listed[] {
  return runs.filter((run) => run.evalId === undefined).map((run) => ({ run }));
}

function printTable(runs: readonly Listed[], where: string, manyStores: boolean): void {
  if (runs.length === 0) {
    process.stdout.write(`no runs ${where}\n`);
    return;
  }
  const rows = runs.map(({ run, evalStatus }) => [
    run.runId,
    ...(manyStores ? [run.store] : []),
    evalStatus ?? run.status,
    run.source ?? run.program ?? "?",
    ...(manyStores ? [run.version === undefined ? "-" : run.version.slice(0, 12)] : []),
    started(run.startedAt),
    cost(run.cost),
  ]);
  const header = manyStores
    ? ["RUN", "STORE", "STATUS", "PROGRAM", "VERSION", "STARTED", "COST"]
    : ["RUN", "STATUS", "PROGRAM", "STARTED", "COST"];
  printColumns(header, rows);
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

/** A run in `--format json`: every field the store knows, null where it knows none. */
function asJson({ run }: Listed): object {
  return {
    runId: run.runId,
    store: run.store,
    status: run.status,
    ...(run.backendStatus === undefined ? {} : { backendStatus: run.backendStatus }),
    program: run.program ?? null,
    source: run.source ?? null,
    ...(run.version === undefined ? {} : { version: run.version }),
    ...(run.queue === undefined ? {} : { queue: run.queue }),
    ...(run.worker === undefined ? {} : { worker: run.worker }),
    startedAt: run.startedAt ?? null,
    updatedAt: run.updatedAt ?? null,
    steps: run.steps,
    cost: run.cost ?? null,
    ...(run.evalId === undefined ? {} : { evalId: run.evalId }),
  };
}

/** `runs show`: a run's steps, and what it waits for (an input, a tool call to approve), one a line. */
async function showRun(runId: string, json: boolean): Promise<ExitCode> {
  const store = openRunStore(process.cwd());
  const found: FoundRun | undefined = await store.find(runId);
  if (found === undefined)
    throw new UsageError(
      withRunAbove(`runs show ${runId}: there is no such run (prosec runs lists them)`, process.cwd(), runId),
    );
  const steps = await store.steps(runId);
  if (json) {
    process.stdout.write(`${jsonText(steps, 2)}\n`);
    return EXIT.ok;
  }
  printSteps(steps);
  for (const line of found.waitingFor) process.stdout.write(`waiting ${terminalText(line)}\n`);
  return EXIT.ok;
}
