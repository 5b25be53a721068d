/**
 * `prosec runs`: the runs in `.prose/runs/` (status, program, start, cost), and `prosec runs prune`,
 * which removes the old ones that no process is running.
 */
import { rmSync } from "node:fs";
import type { Argv } from "yargs";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isRunning, listRuns, runsFolder, type ListedRun } from "../run/run-list.js";
import { runSteps, type ShownStep } from "../run/run-steps.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { withFormat, type FormatArguments } from "./output-format.js";

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
    "List the runs in .prose/runs (status, program, start, cost); prune old ones",
    (command) =>
      command
        .command<FormatArguments>(
          "$0",
          "list the runs, oldest first",
          (list) => withFormat(list, "one object per run, in an array"),
          (argv) => {
            const runs = listRuns(process.cwd());
            if (argv.format === "json") process.stdout.write(`${JSON.stringify(runs.map(asJson), null, 2)}\n`);
            else printTable(runs);
            process.exitCode = EXIT.ok;
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
          (argv) => {
            const dir = join(runsFolder(process.cwd()), argv.id);
            if (!existsSync(dir)) throw new UsageError(`runs show ${argv.id}: there is no such run in .prose/runs`);
            const steps = runSteps(dir);
            if (argv.format === "json") process.stdout.write(`${JSON.stringify(steps, null, 2)}\n`);
            else printSteps(steps);
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
    step.turns === undefined ? step.status : `${step.status} (${step.turns} turns)`,
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

function printTable(runs: readonly ListedRun[]): void {
  if (runs.length === 0) {
    process.stdout.write("no runs in .prose/runs\n");
    return;
  }
  const rows = runs.map((run) => [
    run.runId,
    run.status,
    run.source ?? run.program ?? "?",
    started(run.startedAt),
    cost(run.cost),
  ]);
  printColumns(["RUN", "STATUS", "PROGRAM", "STARTED", "COST"], rows);
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

function asJson(run: ListedRun): object {
  return {
    runId: run.runId,
    status: run.status,
    program: run.program ?? null,
    source: run.source ?? null,
    startedAt: run.startedAt ?? null,
    lastWritten: new Date(run.lastWrittenMs).toISOString(),
    steps: run.steps,
    cost: run.cost ?? null,
  };
}
