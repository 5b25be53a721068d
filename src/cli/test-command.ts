import type { Argv } from "yargs";
import { withFormat } from "./output-format.js";
import type { TestArguments } from "./test-goldens.js";

export function testCommand(yargs: Argv): Argv {
  return yargs.command<TestArguments>(
    "test [paths..]",
    "Replay golden runs (folders holding run.json and journal.jsonl) with no model and no network, and compare their outputs",
    (command) =>
      withFormat(
        command.positional("paths", {
          type: "string",
          array: true,
          default: ["tests"],
          describe: "golden test folders, or folders to search for them (default tests/)",
        }),
        "one report of every test",
      )
        .option("save", {
          type: "string",
          array: true,
          nargs: 2,
          describe: "RUN_ID NAME: save the run in .prose/runs/RUN_ID as the golden test tests/NAME.golden",
        })
        .option("update", {
          type: "boolean",
          default: false,
          describe: "rewrite each test's expected outputs and journal from its replay (no model is called)",
        })
        .option("write-pending", {
          type: "boolean",
          default: false,
          describe: "write the steps a recording lacks to answers.json in the test's folder, to answer by hand",
        })
        .option("strict", { type: "boolean", default: false, describe: "treat warnings as errors" }),
    async (argv) => {
      const { runTests } = await import("./test-goldens.js");
      process.exitCode = await runTests(argv);
    },
  );
}
