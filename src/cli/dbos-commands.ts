import type { Argv } from "yargs";
import { withFormat } from "./output-format.js";
import type { ResultArguments } from "../runs/dbos-result.js";
import type { SubmitArguments, WorkerArguments } from "./worker-commands.js";
import type { ExitCode } from "../exit-codes.js";

const QUEUE = { type: "string", default: "prosec", describe: "the DBOS queue runs wait in" } as const;
const STRICT = { type: "boolean", default: false, describe: "treat warnings as errors" } as const;
const RUN_ID = { type: "string", demandOption: true, describe: "the run's id (what prosec submit printed)" } as const;

type Commands = typeof import("./worker-commands.js");

/** Loads the commands only when one runs (DBOS, pg and the TypeScript compiler are not for `check` to pay for). */
async function perform(command: (commands: Commands) => Promise<ExitCode>): Promise<void> {
  const commands = await import("./worker-commands.js");
  const { reportingStore } = await import("../runs/open-run-store.js");
  process.exitCode = await reportingStore(() => command(commands));
}

/** The commands that run programs on DBOS (PostgreSQL at DBOS_SYSTEM_DATABASE_URL). */
export function dbosCommands(yargs: Argv): Argv {
  return yargs
    .command<WorkerArguments>(
      "worker <file>",
      "Serve runs of a program from a DBOS queue until stopped (Ctrl-C)",
      (command) =>
        command
          .positional("file", { type: "string", demandOption: true, describe: "the .prose program" })
          .option("queue", QUEUE)
          .option("concurrency", { type: "number", default: 32, describe: "runs at once on this worker" })
          .option("id", {
            type: "string",
            describe: "this worker's id, the same after a restart so it recovers its own runs (default: the host name)",
          })
          .option("adopt-after", {
            type: "number",
            default: 30,
            describe: "seconds of silence after which another worker's unfinished runs are taken over",
          })
          .option("outage-limit", {
            type: "number",
            default: 300,
            describe: "seconds the database may stay unreachable (runs pause meanwhile) before the worker exits with 8",
          })
          .option("strict", STRICT)
          .option("otel", {
            type: "string",
            describe:
              "send the runs' OpenTelemetry spans to this OTLP/HTTP collector (e.g. http://localhost:4318; default: OTEL_EXPORTER_OTLP_ENDPOINT)",
          }),
      async (argv) => {
        const { startTracing } = await import("../run/tracing.js");
        const tracing = await startTracing(argv.otel, (line) => process.stderr.write(`${line}\n`));
        try {
          await tracing.within(() => perform((commands) => commands.runWorker(argv)));
        } finally {
          await tracing.end();
        }
      },
    )
    .command<SubmitArguments>(
      "submit <file>",
      "Queue a run of a program for the workers (or many: --inputs runs.jsonl); prints their ids",
      (command) =>
        command
          .positional("file", {
            type: "string",
            demandOption: true,
            describe: "the .prose program (the workers' compiled program must be the same)",
          })
          .option("input", {
            alias: "i",
            type: "string",
            array: true,
            default: [],
            describe: "an input as name=value, or name=@file (repeatable; with --inputs, given to every run)",
          })
          .option("inputs", {
            type: "string",
            describe: 'a JSON-lines file of runs, one a line, each an object of its inputs ({"topic": "tea"})',
          })
          .option("queue", QUEUE)
          .option("id", {
            type: "string",
            describe:
              "the run's id (default: a new one); submitting an id again returns that run. With --inputs, each run's id is ID-<line number>",
          })
          .option("strict", STRICT),
      (argv) => perform((commands) => commands.submitRun(argv)),
    )
    .command<ResultArguments>(
      "status <run-id>",
      "Show where a queued run is: its status, worker and checkpointed steps",
      (command) => withFormat(command.positional("run-id", RUN_ID), "one object"),
      (argv) => perform((commands) => commands.showStatus(argv)),
    )
    .command<ResultArguments>(
      "result <run-id>",
      "Wait for a queued run to finish and print its outputs",
      (command) =>
        withFormat(command.positional("run-id", RUN_ID), "the outputs as one object").option("timeout", {
          type: "number",
          describe: "stop waiting after this many seconds: exit 6 while the run is still pending",
        }),
      (argv) => perform((commands) => commands.showResult(argv)),
    )
    .command(
      "migrate",
      "Create or upgrade the DBOS system database (workers and submit also do this, once, under a lock)",
      (command) => command,
      () => perform((commands) => commands.migrateDatabase()),
    );
}
