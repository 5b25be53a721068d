/**
 * `prosec answer`, `prosec approve`, `prosec deny` and `prosec cancel`: for a run in `.prose/runs/` when the working directory holds
 * it, else for a run in the DBOS database (DBOS_SYSTEM_DATABASE_URL).
 */
import type { Argv } from "yargs";
import { RunStateError } from "../../runtime/errors.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { configuredDatabaseUrl } from "../worker/database-url.js";

interface AnswerArguments {
  readonly runId: string;
  readonly answers: readonly string[];
}

interface DecisionArguments {
  readonly runId: string;
  readonly calls?: readonly string[];
  readonly all?: boolean;
  readonly reason?: string;
}

interface CancelArguments {
  readonly runId: string;
}

const RUN_ID = { type: "string", demandOption: true, describe: "the run's id" } as const;

export function controlCommands(yargs: Argv): Argv {
  return yargs
    .command<AnswerArguments>(
      "answer <run-id> <answers..>",
      "Answer the inputs a waiting run asks for (name=value, or name=@file)",
      (command) =>
        command.positional("run-id", RUN_ID).positional("answers", {
          type: "string",
          array: true,
          demandOption: true,
          describe: "name=value for each input answered",
        }),
      async (argv) => {
        const { parseAssignments } = await import("../run/inputs.js");
        const answers = parseAssignments(argv.answers, "");
        process.exitCode = await perform(
          argv.runId,
          (control, dir) => control.answerFileRun(dir, argv.runId, answers),
          (dbos) => dbos.answerRun(argv.runId, answers),
        );
      },
    )
    .command<DecisionArguments>(
      "approve <run-id> [calls..]",
      "Approve the tool calls a waiting run asks a person about (the one pending, the calls named, or --all)",
      (command) =>
        command
          .positional("run-id", RUN_ID)
          .positional("calls", {
            type: "string",
            array: true,
            describe: "the calls' ids, as prosec runs show lists them",
          })
          .option("all", { type: "boolean", describe: "every call the run waits for" }),
      async (argv) => {
        process.exitCode = await perform(
          argv.runId,
          (control, dir) => control.decideFileRun(dir, argv.runId, argv.calls ?? [], argv.all === true, "yes"),
          (dbos) => dbos.decideRun(argv.runId, argv.calls ?? [], argv.all === true, "yes"),
        );
      },
    )
    .command<DecisionArguments>(
      "deny <run-id> [calls..]",
      "Refuse the tool calls a waiting run asks a person about; the model is told, with --reason",
      (command) =>
        command
          .positional("run-id", RUN_ID)
          .positional("calls", { type: "string", array: true, describe: "the calls' ids" })
          .option("all", { type: "boolean", describe: "every call the run waits for" })
          .option("reason", { type: "string", describe: "why, for the model" }),
      async (argv) => {
        const answer = argv.reason === undefined ? "no" : `no: ${argv.reason}`;
        process.exitCode = await perform(
          argv.runId,
          (control, dir) => control.decideFileRun(dir, argv.runId, argv.calls ?? [], argv.all === true, answer),
          (dbos) => dbos.decideRun(argv.runId, argv.calls ?? [], argv.all === true, answer),
        );
      },
    )
    .command<CancelArguments>(
      "cancel <run-id>",
      "End a waiting or running run; it is never resumed",
      (command) => command.positional("run-id", RUN_ID),
      async (argv) => {
        process.exitCode = await perform(
          argv.runId,
          (control, dir) => control.cancelFileRun(dir, argv.runId),
          (dbos) => dbos.cancelRun(argv.runId),
        );
      },
    );
}

type FileControl = typeof import("../run/control.js");
type DbosControl = typeof import("../worker/commands.js");

async function perform(
  runId: string,
  onFile: (control: FileControl, dir: string) => string[],
  onDbos: (dbos: DbosControl) => Promise<string[]>,
): Promise<ExitCode> {
  if (!/^[\w.-]{1,100}$/.test(runId))
    throw new UsageError(`${runId}: a run id has letters, digits, '.', '_' and '-' (at most 100)`);
  const control = await import("../run/control.js");
  const dir = control.fileRunFolder(process.cwd(), runId);
  let lines: string[];
  if (dir !== undefined) {
    try {
      lines = onFile(control, dir);
    } catch (error) {
      if (!(error instanceof RunStateError)) throw error;
      process.stderr.write(`prosec: ${error.message}\n`);
      return EXIT.runStateUnusable;
    }
  } else if (configuredDatabaseUrl() !== undefined) {
    const dbos = await import("../worker/commands.js");
    let found: string[] | undefined;
    const code = await dbos.reportingDatabase(async () => {
      found = await onDbos(dbos);
      return EXIT.ok;
    });
    if (found === undefined) return code;
    lines = found;
  } else {
    throw new UsageError(
      `there is no run ${runId} in .prose/runs here, and DBOS_SYSTEM_DATABASE_URL is not set to look for it in a database`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  return EXIT.ok;
}
