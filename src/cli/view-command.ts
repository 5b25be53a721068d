/**
 * `prosec view [RUN_ID]`: a local, read-only page over the store's runs (src/runs/: `.prose/runs/`,
 * and the DBOS database's when one is configured), served on 127.0.0.1 with a random token in its
 * address, or with `--out report.html` one self-contained file of one run that opens offline.
 */
import { renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { Argv } from "yargs";
import { renderPage } from "../view/page.js";
import { reportDetails } from "../view/report.js";
import { readRunSteps } from "../view/run-steps.js";
import { runViewOf } from "../view/run-view.js";
import { startViewServer } from "../view/server.js";
import { renderStoredRunPage } from "../view/stored-run-page.js";
import type { RunStore } from "../runs/run-store.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../errors.js";

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
        .example("$0 view <run-id> --out report.html", "a report of one run that opens offline"),
    async (argv) => {
      process.exitCode = await runView(argv);
    },
  );
}

export async function runView(argv: ViewArguments): Promise<number> {
  const { openRunStore, reportingStore } = await import("../runs/open-run-store.js");
  const store = openRunStore(process.cwd());
  // Said in one line when the store cannot be read, or has no such run.
  return reportingStore(async () => {
    if (argv.run !== undefined && (await store.find(argv.run)) === undefined)
      throw new UsageError(`no run ${argv.run} ${(await store.list()).where} (prosec runs lists them)`);
    if (argv.out === undefined) return serve(store, argv.run);
    // Renaming the page over a folder fails, over `.` with EBUSY: say so before rendering.
    if (statSync(argv.out, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--out ${argv.out} is a folder: name the file to write (--out report.html)`);
    const runId = argv.run ?? (await store.list()).runs[0]?.runId;
    if (runId === undefined) throw new UsageError("no runs here to write a report of (prosec runs lists them)");
    const found = (await store.find(runId))!;
    if (found.folder === undefined) {
      writeWhole(argv.out, renderStoredRunPage(found, await store.steps(runId)));
      process.stdout.write(`${argv.out}: run ${runId} (${found.program ?? found.store}, ${found.status})\n`);
      return EXIT.ok;
    }
    const steps = readRunSteps(runId, found.folder);
    const run = runViewOf(steps);
    const details = reportDetails(steps, found.folder);
    writeWhole(argv.out, renderPage({ title: `${run.program} · ${runId}`, mode: "run", run, details }));
    process.stdout.write(`${argv.out}: run ${runId} (${run.program}, ${run.status})\n`);
    return EXIT.ok;
  });
}

async function serve(store: RunStore, runId: string | undefined): Promise<ExitCode> {
  const server = await startViewServer(store, runId);
  process.stdout.write(`prosec view: ${server.url}\n(read-only, this machine only; Ctrl-C stops it)\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
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
