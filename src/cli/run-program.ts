/**
 * `prosec run`: compile, run with narration, print the outputs; the exit code. Loaded only when the
 * command runs: it brings sucrase (for stripping types) and the SDK, which `check` and `build` must
 * not pay for at start-up.
 */
import { existsSync, readFileSync } from "node:fs";
import { APIConnectionError } from "@anthropic-ai/sdk";
import { dirname, join, resolve } from "node:path";
import { askOnTerminal, missingInputs, missingParameters, parseInputArguments } from "../run/inputs.js";
import { printOutputs } from "../run/outputs.js";
import { modelAccessConfigured, noCredentialsMessage } from "../run/credentials.js";
import { createNarrator, type NarrationMode } from "../run/narration.js";
import {
  BudgetExceeded,
  newRunId,
  ProseError,
  RunStateError,
  EnvironmentError,
  WaitingForInput,
  type ProgramInfo,
  type Question,
  type RunOptions,
} from "../../runtime/index.js";
import { isCancelled, readWaiting } from "../../runtime/durable/run-control.js";
import { answerName } from "../../runtime/durable/question-names.js";
import { findMcpConfig } from "../../runtime/tools/mcp/config.js";
import { APPROVAL_PREFIX } from "../../runtime/tools/approvals.js";
import { approvalQuestion } from "../run/approval-question.js";
import { pricesFromEnvironment, warnAboutBound } from "./cost-report.js";
import { readFallback, type FallbackArguments } from "./fallback-option.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { loadChecked } from "../run/load-checked.js";
import { keepHeapNearLiveSize } from "../run/heap.js";
import { forkRun } from "../../runtime/durable/fork.js";
import type { RemoteRunArguments } from "./run-remote.js";
import { isRemoteUse } from "../references.js";
import { configuredDatabaseUrl } from "../worker/database-url.js";

/** What `prosec run` was given (see run-command.ts): the file may be left out to resume a DBOS run. */
export interface RunArguments extends Omit<RemoteRunArguments, "file">, FallbackArguments {
  readonly file?: string;
  readonly input: readonly string[];
  readonly resume?: string;
  readonly json: boolean;
  readonly concurrency?: number;
  readonly budget?: number;
  readonly "max-calls"?: number;
  readonly "max-tokens"?: number;
  readonly reasks?: number;
  readonly continuations?: number;
  readonly "on-truncation"?: "fail" | "keep";
  readonly sandbox?: "required" | "auto" | "off";
  readonly strict: boolean;
  readonly rerun?: boolean;
  readonly from?: number;
  /** `--stream` (delta events in `--json`), `--no-stream` (requests sent whole). */
  readonly stream?: boolean;
  /** The OTLP/HTTP collector to send spans to (src/run/tracing.ts). */
  readonly otel?: string;
}

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;
/** A DBOS run's id: `prosec submit --id` takes any of these. */
const DBOS_RUN_ID = /^[\w.-]{1,100}$/;

export async function runProgram(argv: RunArguments): Promise<ExitCode> {
  const cwd = process.cwd();
  if (argv.resume !== undefined && !existsSync(join(".prose", "runs", argv.resume)) && databaseConfigured()) {
    if (!DBOS_RUN_ID.test(argv.resume))
      throw new UsageError(`--resume ${argv.resume}: a run id has letters, digits, '.', '_' and '-' (at most 100)`);
    return resumeInDatabase({ ...argv, resume: argv.resume }, cwd);
  }
  if (argv.file === undefined)
    throw new UsageError(
      "Not enough non-option arguments: got 0, need at least 1 (the program to run; only a DBOS run resumes without it: prosec run --resume ID)",
    );
  const named = { ...argv, file: argv.file };
  if (argv.resume !== undefined && !RUN_ID.test(argv.resume))
    throw new UsageError(`--resume ${argv.resume}: a run id looks like 20260115-143052-a7b3c9`);
  if (argv.concurrency !== undefined && (!Number.isInteger(argv.concurrency) || argv.concurrency < 1))
    throw new UsageError("--concurrency takes a whole number of at least 1");
  if (argv.budget !== undefined && !(argv.budget > 0 && Number.isFinite(argv.budget)))
    throw new UsageError("--budget takes a positive number of dollars, e.g. --budget 2.50");
  if (argv.from !== undefined && argv.resume === undefined)
    throw new UsageError("--from LINE starts a new run from the beginning of another: name that run with --resume ID");
  if (argv.from !== undefined && (!Number.isInteger(argv.from) || argv.from < 1))
    throw new UsageError("--from takes a line number of at least 1");
  const maxCalls = argv["max-calls"];
  if (maxCalls !== undefined && (!Number.isInteger(maxCalls) || maxCalls < 1))
    throw new UsageError("--max-calls takes a whole number of at least 1");
  const answers = modelAnswerOptions(argv);
  const prices = pricesFromEnvironment();
  const fallback = readFallback(argv.fallback);
  let file = named.file;
  // The registry's code is loaded only for a program the command line names by reference.
  if (!existsSync(file) && isRemoteUse(file)) {
    const { programToRun } = await import("./run-remote.js");
    const { registryFailure } = await import("./registry-session.js");
    try {
      file = await programToRun(named);
    } catch (error) {
      const code = registryFailure(error);
      if (code === undefined) throw error;
      return code;
    }
  }
  const loaded = await loadChecked(file, { cwd, strict: argv.strict });
  if (loaded === undefined) return EXIT.failed;
  // After compiling: a large program's compilation builds a large live heap, best grown the usual way.
  keepHeapNearLiveSize();
  if (!(await modelAccessConfigured())) throw new UsageError(noCredentialsMessage);
  const program = loaded.module.default;
  const color = process.stderr.isTTY === true && !process.env["NO_COLOR"];

  // `--from` forks: the run resumed is a new one, started as a copy of the named run's beginning.
  const runId = argv.from === undefined && argv.resume !== undefined ? argv.resume : newRunId(new Date());
  // Relative to the working directory (which is `cwd`), so messages about the run's files read short.
  const runDir = join(".prose", "runs", runId);
  // A folder without a usable run.json is the runtime's to explain (EXIT.runStateUnusable).
  if (argv.resume !== undefined && !existsSync(join(".prose", "runs", argv.resume)))
    throw new UsageError(
      `--resume ${argv.resume}: there is no such run in ${join(".prose", "runs")} (set DBOS_SYSTEM_DATABASE_URL to resume a run in a DBOS database)`,
    );
  if (argv.from !== undefined && argv.resume !== undefined) {
    const fork = forkRun(join(".prose", "runs", argv.resume), runDir, runId, argv.from);
    process.stderr.write(
      `forked run ${argv.resume} into ${runId}: reusing the ${fork.reused} ${fork.reused === 1 ? "step" : "steps"} it recorded before ${fork.firstLine === undefined ? "its end" : `line ${fork.firstLine}`}\n`,
    );
  }
  const inputs = parseInputArguments(argv.input, program, argv.from === undefined ? waitingIn(runDir) : []);
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const missing = missingParameters(program, inputs);
  if (argv.resume === undefined && missing.length > 0 && !interactive) {
    throw missingInputs(missing);
  }

  if (argv.resume === undefined && argv.budget === undefined && maxCalls === undefined && program.cost !== undefined)
    warnAboutBound(program.cost, inputs, fallback.chains.boundPrices(prices), answers.reasks);

  const mode: NarrationMode = argv.json ? "json" : process.stderr.isTTY === true ? "live" : "plain";
  const narrator = createNarrator(mode, argv.json ? process.stdout : process.stderr, color, {
    stream: argv.stream === true,
  });
  const controller = new AbortController();
  let interrupts = 0;
  const interrupt = (how: string): void => {
    // A second Ctrl-C does not wait for the run to wind down.
    if (++interrupts > 1) process.exit(EXIT.interrupted);
    controller.abort(
      new ProseError(isCancelled(runDir) ? "The run was cancelled (prosec cancel)." : `The run was ${how}.`),
    );
  };
  process.on("SIGINT", () => interrupt("interrupted (Ctrl-C)"));
  process.on("SIGTERM", () => interrupt("terminated (SIGTERM)"));
  let finalResult: string | undefined;
  try {
    const outputs = await loaded.module.run(inputs, {
      runId,
      runDir,
      resume: argv.resume !== undefined,
      ...(argv.resume !== undefined && argv.strict ? { strict: true } : {}),
      ...(argv.resume !== undefined && argv.rerun === true ? { rerun: true } : {}),
      cwd,
      ...mcpConfigOf(file, cwd),
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "run-end") finalResult = event.result;
        narrator.event(event);
      },
      ...(argv.concurrency === undefined ? {} : { concurrency: argv.concurrency }),
      ...(argv.sandbox === undefined ? {} : { sandbox: argv.sandbox }),
      ...(argv.budget === undefined ? {} : { budget: argv.budget }),
      ...(maxCalls === undefined ? {} : { maxCalls }),
      ...(Object.keys(fallback.given).length === 0 ? {} : { fallback: fallback.given }),
      ...(argv.stream === false ? { stream: false } : {}),
      ...answers,
      ...(argv.yes ? { startOverBound: true } : {}),
      ...(interactive
        ? {
            onInput: (definition) => {
              narrator.pause();
              return askOnTerminal(definition, controller.signal);
            },
            onApproval: approvalQuestion({ input: process.stdin, output: process.stderr }, controller.signal, () =>
              narrator.pause(),
            ),
          }
        : {}),
    });
    narrator.pause();
    printOutputs(outputs, argv.json, runId, finalResult);
    return EXIT.ok;
  } catch (error) {
    narrator.pause();
    // A fetched program resumes from the cache: the registry may serve another text by then.
    const again = `${quote(named.file)}${file === named.file ? "" : " --offline"}`;
    if (error instanceof WaitingForInput) return reportWaiting(error, named, again, runId, program);
    if (!(error instanceof ProseError)) throw error;
    if (argv.json)
      process.stdout.write(
        `${JSON.stringify({ type: "failed", runId, message: error.message, interrupted: controller.signal.aborted })}\n`,
      );
    // The narration has shown the error already (a RunStateError's says what to do); what is left is how to go on.
    if (error instanceof RunStateError) return EXIT.runStateUnusable;
    if (error instanceof EnvironmentError) {
      if (resumable(runDir, program.sourceHash) && !isCancelled(runDir))
        process.stderr.write(`Once that is fixed, resume with: prosec run ${again} --resume ${runId}\n`);
      return EXIT.environment;
    }
    const budget = error instanceof BudgetExceeded;
    // The message states the facts; how to go on is said here, in the command line's options.
    const more = !budget ? "" : error.remedy === "price" ? " (with the price set)" : " --budget <dollars> (or --yes)";
    if (resumable(runDir, program.sourceHash) && !isCancelled(runDir))
      process.stderr.write(`Resume with: prosec run ${again} --resume ${runId}${more}\n`);
    if (budget) return EXIT.budget;
    if (controller.signal.aborted) return EXIT.interrupted;
    return causedByNetwork(error) ? EXIT.network : EXIT.failed;
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}

/** What the run waits for and the commands that answer it (stderr; stdout too under `--json`). */
function reportWaiting(
  waiting: WaitingForInput,
  argv: RunArguments & { file: string },
  again: string,
  runId: string,
  program: ProgramInfo,
): ExitCode {
  const questions = waiting.questions.map((question) => ({
    name: question.name,
    prompt: question.prompt,
    line: question.at.line,
    column: question.at.column,
    // A called program's input is where that program asks it: its own file.
    program: question.source === undefined || question.source === program.source ? argv.file : question.source,
    key: question.key,
    answer: answerName(question, waiting.questions),
    ...(question.deadline === undefined ? {} : { deadline: question.deadline }),
  }));
  if (argv.json) process.stdout.write(`${JSON.stringify({ type: "waiting", runId, questions })}\n`);
  for (const question of questions) {
    const at = `${question.program}:${question.line}:${question.column}`;
    if (question.name.startsWith(APPROVAL_PREFIX)) {
      const call = question.name.slice(APPROVAL_PREFIX.length);
      process.stderr.write(
        `Waiting for approval: ${question.prompt} (${at}). ` +
          `Approve with: prosec approve ${runId} ${call}, or deny with: prosec deny ${runId} ${call} --reason "..."; ` +
          `then continue with: prosec run ${again} --resume ${runId}\n`,
      );
      continue;
    }
    const name = quote(question.answer);
    process.stderr.write(
      `Waiting for input "${question.name}" (${question.prompt}) at ${at}${question.deadline === undefined ? "" : ` until ${question.deadline}`}. ` +
        `Answer with: prosec answer ${runId} ${name}=..., then prosec run ${again} --resume ${runId}; ` +
        `or: prosec run ${again} --resume ${runId} --input ${name}=...\n`,
    );
  }
  return EXIT.waitingForInput;
}

/** The questions a file run waits for, which `--resume ID --input` may answer by name (none when unreadable: the run says why). */
function waitingIn(runDir: string): readonly Question[] {
  try {
    return readWaiting(runDir)?.questions ?? [];
  } catch {
    return [];
  }
}

/** Whether the run folder holds a run of this very program (a refused resume does not). */
function resumable(runDir: string, sourceHash: string): boolean {
  try {
    return (
      (JSON.parse(readFileSync(join(runDir, "run.json"), "utf8")) as { sourceHash?: string }).sourceHash === sourceHash
    );
  } catch {
    return false;
  }
}

/** Whether the run failed because the model's server could not be reached (after the SDK's retries). */
function causedByNetwork(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause)
    if (cause instanceof APIConnectionError) return true;
  return false;
}

function quote(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}

/** The `.mcp.json` nearest the program (for a fetched program, the project's: its cache holds none). */
function mcpConfigOf(file: string, cwd: string): { mcpConfig?: string } {
  const config = findMcpConfig(dirname(resolve(cwd, file))) ?? findMcpConfig(cwd);
  return config === undefined ? {} : { mcpConfig: config };
}

function databaseConfigured(): boolean {
  return configuredDatabaseUrl() !== undefined;
}

/**
 * `--resume ID` of a run that is not in .prose/runs, with a database set: DBOS's workflow management
 * continues it on a worker (src/worker/resume-run.ts). A file named is compiled to check its version.
 */
async function resumeInDatabase(argv: RunArguments & { resume: string }, cwd: string): Promise<ExitCode> {
  if (argv.from !== undefined && (!Number.isInteger(argv.from) || argv.from < 1))
    throw new UsageError("--from takes a line number of at least 1");
  let version: string | undefined;
  if (argv.file !== undefined) {
    const loaded = await loadChecked(argv.file, { cwd, strict: argv.strict });
    if (loaded === undefined) return EXIT.failed;
    version = loaded.codeHash;
  }
  const { reportingDatabase } = await import("../worker/client.js");
  const options = { runId: argv.resume, json: argv.json, ...(version === undefined ? {} : { version }) };
  if (argv.from !== undefined) {
    const { forkDbosRun } = await import("../worker/fork-run.js");
    const line = argv.from;
    return reportingDatabase(() => forkDbosRun({ ...options, line }));
  }
  const { resumeDbosRun } = await import("../worker/resume-run.js");
  return reportingDatabase(() => resumeDbosRun(options));
}

/** What the run does when the model does not answer as asked (docs/model-answers.md). */
function modelAnswerOptions(
  argv: RunArguments,
): Pick<RunOptions, "maxTokens" | "reasks" | "continuations" | "onTruncation"> {
  const count = (flag: string, value: number | undefined, least: number): number | undefined => {
    if (value !== undefined && (!Number.isInteger(value) || value < least))
      throw new UsageError(`--${flag} takes a whole number of at least ${least}`);
    return value;
  };
  const maxTokens = count("max-tokens", argv["max-tokens"], 1);
  const reasks = count("reasks", argv.reasks, 0);
  const continuations = count("continuations", argv.continuations, 0);
  const onTruncation = argv["on-truncation"];
  return {
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(reasks === undefined ? {} : { reasks }),
    ...(continuations === undefined ? {} : { continuations }),
    ...(onTruncation === undefined ? {} : { onTruncation }),
  };
}
