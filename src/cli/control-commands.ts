/**
 * `prosec answer`, `prosec approve`, `prosec deny` and `prosec cancel`: for a run of the store
 * (src/runs/open-run-store.ts: `.prose/runs/`, and the DBOS database when one is configured).
 */
import type { Argv } from "yargs";
import { EXIT } from "../exit-codes.js";
import { terminalText } from "../printable.js";
import type { RunStore } from "../runs/run-store.js";

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
        process.exitCode = await perform((store) => store.answer(argv.runId, answers));
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
        process.exitCode = await perform((store) =>
          store.approve(argv.runId, { calls: argv.calls ?? [], all: argv.all === true }),
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
        const reason = argv.reason === undefined ? {} : { reason: argv.reason };
        process.exitCode = await perform((store) =>
          store.deny(argv.runId, { calls: argv.calls ?? [], all: argv.all === true, ...reason }),
        );
      },
    )
    .command<CancelArguments>(
      "cancel <run-id>",
      "End a waiting or running run; it is never resumed",
      (command) => command.positional("run-id", RUN_ID),
      async (argv) => {
        process.exitCode = await perform((store) => store.cancel(argv.runId));
      },
    );
}

/** Does `operation` to the store, prints the lines it returns; the exit code. */
async function perform(operation: (store: RunStore) => Promise<readonly string[]>): Promise<number> {
  const { openRunStore, reportingStore } = await import("../runs/open-run-store.js");
  return reportingStore(async () => {
    const lines = await operation(openRunStore(process.cwd()));
    process.stdout.write(terminalText(`${lines.join("\n")}\n`));
    return EXIT.ok;
  });
}
