import type { Argv } from "yargs";
import { withFallback } from "./fallback-option.js";
import { withFormat } from "./output-format.js";
import type { RunArguments } from "./run-program.js";

export function runCommand(yargs: Argv): Argv {
  return yargs.command<RunArguments>(
    "run [file]",
    "Compile a .prose program in memory and run it (or a registry program: handle/slug or a URL); its state goes to .prose/runs/<run id>/",
    (command) =>
      withFallback(
        withFormat(
          command.positional("file", {
            type: "string",
            describe:
              "the .prose program, or handle/slug, @handle/slug or a URL to fetch into the cache (not needed to resume a DBOS run)",
          }),
          "every event as a line on stdout, then the outputs",
        ),
        "the narration and the run's usage name the model that answered",
      )
        .option("stream", {
          type: "boolean",
          describe:
            "sessions' text as it arrives: on a terminal by default; with --json, as delta events. --no-stream sends every request whole",
        })
        .option("input", {
          alias: "i",
          type: "string",
          array: true,
          default: [],
          describe: "an input as name=value, or name=@file to read it from a file (repeatable)",
        })
        .option("resume", {
          type: "string",
          describe:
            "continue the run with this id: finished steps are replayed, not paid for again (a run in .prose/runs, else one in the DBOS database at DBOS_SYSTEM_DATABASE_URL)",
        })
        .option("from", {
          type: "number",
          describe:
            "with --resume: fork the run into a new one that reuses the steps recorded before this line and runs the rest",
        })
        .option("concurrency", {
          type: "number",
          describe: "hard cap on model calls in flight (default 64; below it the pace adapts to 429s)",
        })
        .option("budget", {
          type: "number",
          describe:
            "dollars the whole run may spend (a resumed run counts what it spent); stops the run before a call could cross it",
        })
        .option("max-calls", {
          type: "number",
          describe: "model requests the whole run may make (tool turns count, replays do not)",
        })
        .option("max-tokens", {
          type: "number",
          describe: "max_tokens of each session's model calls (default: the model's own output limit, else 8192)",
        })
        .option("reasks", {
          type: "number",
          describe:
            "how many more times a judgment, choice or extraction is asked when its answer cannot be read (default 2)",
        })
        .option("continuations", {
          type: "number",
          describe: "how many times a session's answer cut off at max_tokens is continued (default 3)",
        })
        .option("on-truncation", {
          choices: ["fail", "keep"] as const,
          describe: "an answer still cut off after its continuations: fail the step (default) or keep the text",
        })
        .option("sandbox", {
          choices: ["required", "auto", "off"] as const,
          describe:
            "the OS sandbox (bubblewrap) of agents' commands: required (default: without it no commands), auto (used when installed, else commands run as you), off",
        })
        .option("strict", {
          type: "boolean",
          default: false,
          describe: "treat warnings as errors; with --resume, refuse a program changed since the run started",
        })
        .option("yes", {
          type: "boolean",
          default: false,
          describe:
            "go ahead without asking: run a fetched program not run before (needed off a terminal), and start even when the program's bound is over --budget or --max-calls",
        })
        .option("otel", {
          type: "string",
          describe:
            "send the run's OpenTelemetry spans to this OTLP/HTTP collector (e.g. http://localhost:4318; default: OTEL_EXPORTER_OTLP_ENDPOINT)",
        })
        .option("offline", {
          type: "boolean",
          default: false,
          describe: "run a registry program from the cache only, without fetching it",
        }),
    async (argv) => {
      const { runProgram } = await import("./run-program.js");
      const { startTracing } = await import("../run/tracing.js");
      const tracing = await startTracing(argv.otel, (line) => process.stderr.write(`${line}\n`));
      try {
        process.exitCode = await tracing.within(() => runProgram(argv));
      } finally {
        await tracing.end();
      }
    },
  );
}
