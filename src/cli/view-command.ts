/**
 * `prosec view [RUN_ID]`: a local, read-only page over `.prose/runs/` (served on 127.0.0.1 with a
 * random token in its address), or with `--out report.html` one self-contained file of one run that
 * opens offline.
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";
import type { Argv } from "yargs";
import { renderPage } from "../view/page.js";
import { reportDetails } from "../view/report.js";
import { readRunSteps } from "../view/run-steps.js";
import { runViewOf } from "../view/run-view.js";
import { listRuns, runDir, startViewServer } from "../view/server.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { configuredDatabaseUrl } from "../worker/database-url.js";

export interface ViewArguments {
  readonly run?: string;
  readonly out?: string;
}

export function viewCommand(yargs: Argv): Argv {
  return yargs.command<ViewArguments>(
    "view [run]",
    "Look at runs in a browser: source, timeline, steps with their requests and answers, graph (a local page)",
    (command) =>
      command
        .positional("run", { type: "string", describe: "a run id (default: the list of runs)" })
        .option("out", {
          type: "string",
          describe: "write one self-contained HTML file of the run (default: the newest) instead",
        })
        .example("$0 view", "serve the page; open the address it prints")
        .example("$0 view 20260115-143052-a7b3c9 --out report.html", "a report that opens offline"),
    async (argv) => {
      process.exitCode = await runView(argv);
    },
  );
}

export async function runView(argv: ViewArguments): Promise<number> {
  const cwd = process.cwd();
  const databaseUrl = configuredDatabaseUrl();
  if (argv.run !== undefined && runDir(cwd, argv.run) === undefined) {
    if (databaseUrl === undefined) throw new UsageError(`no run ${argv.run} in .prose/runs (prosec runs lists them)`);
    return viewDbosRun(argv.run, databaseUrl, argv.out);
  }
  if (argv.out !== undefined) {
    const runId = argv.run ?? listRuns(cwd)[0]?.runId;
    if (runId === undefined) throw new UsageError("no runs in .prose/runs to write a report of");
    const dir = runDir(cwd, runId)!;
    const steps = readRunSteps(runId, dir);
    const run = runViewOf(steps);
    const details = reportDetails(steps, dir);
    writeWhole(argv.out, renderPage({ title: `${run.program} · ${runId}`, mode: "run", run, details }));
    process.stdout.write(`${argv.out}: run ${runId} (${run.program}, ${run.status})\n`);
    return EXIT.ok;
  }
  return serve(cwd, argv.run, databaseUrl);
}

async function serve(cwd: string, runId: string | undefined, databaseUrl: string | undefined): Promise<number> {
  const server = await startViewServer(cwd, runId, databaseUrl === undefined ? {} : { databaseUrl });
  process.stdout.write(`prosec view: ${server.url}\n(read-only, this machine only; Ctrl-C stops it)\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
  return EXIT.ok;
}

/** A run in the DBOS database: its page served, or written with `--out`. */
async function viewDbosRun(runId: string, databaseUrl: string, out: string | undefined): Promise<number> {
  const { readDbosRun, renderDbosRunPage } = await import("../view/dbos-view.js");
  const { findRun, reportingDatabase, withClient } = await import("../worker/client.js");
  // Said in one line when the database cannot be read, or has no such run.
  const code = await reportingDatabase(async () => {
    await withClient(databaseUrl, (client) => findRun(client, runId));
    return EXIT.ok;
  });
  if (code !== EXIT.ok) return code;
  if (out === undefined) return serve(process.cwd(), runId, databaseUrl);
  const detail = await readDbosRun(databaseUrl, runId);
  if (detail === undefined) throw new UsageError(`there is no run ${runId} in this database`);
  writeWhole(out, renderDbosRunPage(detail));
  process.stdout.write(`${out}: run ${runId} (${detail.run.program ?? "DBOS"}, ${detail.run.status})\n`);
  return EXIT.ok;
}

function writeWhole(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}
