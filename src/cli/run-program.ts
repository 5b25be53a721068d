/**
 * `prosec run`: compile, run with narration, print the outputs; the exit code. Loaded only when the
 * command runs: it brings sucrase (for stripping types) and the SDK, which `check` and `build` must
 * not pay for at start-up.
 */
import { existsSync } from "node:fs";
import { APIConnectionError } from "@anthropic-ai/sdk/core/error";
import { dirname, join, resolve } from "node:path";
import { askOnTerminal, missingInputs, missingParameters, parseInputArguments } from "../run/inputs.js";
import { printOutputs } from "../run/outputs.js";
import {
  modelAccessConfigured,
  noCredentialsMessage,
  refusedAccessMessage,
  unreachableServerMessage,
} from "../run/credentials.js";
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
import { isCancelled, readRunFile, readWaiting, answerName, APPROVAL_PREFIX } from "../../runtime/stored-runs.js";
import { findMcpConfig } from "../../runtime/host.js";
import { approvalQuestion } from "../run/approval-question.js";
import { forStream } from "../printable.js";
import { pricesFromEnvironment, warnAboutBound } from "./cost-report.js";
import { readFallback, type FallbackArguments } from "./fallback-option.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { loadChecked } from "../run/load-checked.js";
import { keepHeapNearLiveSize } from "../run/heap.js";
import type { RemoteRunArguments } from "./run-remote.js";
import { namesRemoteProgram } from "../references.js";
import type { Continuation } from "../runs/run-store.js";
import { jsonText } from "../json-text.js";

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

export async function runProgram(argv: RunArguments): Promise<ExitCode> {
  const cwd = process.cwd();
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
  let file = argv.file;
  let loaded: Awaited<ReturnType<typeof loadChecked>>;
  if (file !== undefined) {
    // The registry's code is loaded only for a program the command line names by reference.
    if (!existsSync(file) && namesRemoteProgram(file)) {
      const { programToRun } = await import("./run-remote.js");
      const { registryFailure } = await import("./registry-session.js");
      try {
        file = await programToRun({ ...argv, file });
      } catch (error) {
        const code = registryFailure(error);
        if (code === undefined) throw error;
        return code;
      }
    }
    loaded = await loadChecked(file, { cwd, strict: argv.strict });
    if (loaded === undefined) return EXIT.failed;
    // After compiling: a large program's compilation builds a large live heap, best grown the usual way.
    keepHeapNearLiveSize();
  }
  // `--from` forks: the run resumed is a new one, started as a copy of the named run's beginning.
  let runId = newRunId(new Date());
  if (argv.resume !== undefined) {
    const continued = await continueStored(argv.resume, argv, cwd, loaded?.codeHash);
    if (typeof continued === "number") return continued;
    runId = continued;
  }
  if (argv.file === undefined || file === undefined || loaded === undefined)
    throw new UsageError(
      "Not enough non-option arguments: got 0, need at least 1 (the program to run; only a DBOS run resumes without it: prosec run --resume ID)",
    );
  const named = { ...argv, file: argv.file };
  if (!(await modelAccessConfigured())) throw new UsageError(noCredentialsMessage);
  const program = loaded.module.default;
  const color = process.stderr.isTTY === true && !process.env["NO_COLOR"];
  // Relative to the working directory (which is `cwd`), so messages about the run's files read short.
  const runDir = join(".prose", "runs", runId);
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
        if (event.type === "run-end" && event.source === undefined) finalResult = event.result;
        narrator.event(event);
      },
      ...(argv.concurrency === undefined ? {} : { concurrency: argv.concurrency }),
      ...(argv.sandbox === undefined ? {} : { sandbox: argv.sandbox }),
      ...(argv.budget === undefined ? {} : { budget: argv.budget }),
      ...(maxCalls === undefined ? {} : { maxCalls }),
      ...(Object.keys(fallback.given).length === 0 ? {} : { fallback: fallback.given }),
      ...(argv.stream === false ? { stream: false } : {}),
      // Only a terminal, or `--json --stream`, shows text as it arrives.
      ...(mode === "live" || (mode === "json" && argv.stream === true) ? {} : { streamEvents: false }),
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
        `${jsonText({ type: "failed", runId, message: error.message, interrupted: controller.signal.aborted })}\n`,
      );
    // The narration has shown the error already (a RunStateError's says what to do); what is left is how to go on.
    if (error instanceof RunStateError) return EXIT.runStateUnusable;
    if (error instanceof EnvironmentError) {
      if (resumable(runDir, program.sourceHash) && !isCancelled(runDir))
        process.stderr.write(`Once that is fixed, resume with: prosec run ${again} --resume ${runId}\n`);
      return EXIT.environment;
    }
    const budget = error instanceof BudgetExceeded;
    const unreachable = !budget && !controller.signal.aborted && causedByNetwork(error);
    if (unreachable) process.stderr.write(`prosec: ${unreachableServerMessage()}\n`);
    const refused = budget || unreachable ? undefined : refusedAccessMessage(error);
    if (refused !== undefined) process.stderr.write(forStream(process.stderr, `prosec: ${refused}\n`));
    // The message states the facts; how to go on is said here, in the command line's options.
    const more = !budget ? "" : error.remedy === "price" ? " (with the price set)" : " --budget <dollars> (or --yes)";
    if (resumable(runDir, program.sourceHash) && !isCancelled(runDir))
      process.stderr.write(`Resume with: prosec run ${again} --resume ${runId}${more}\n`);
    if (budget) return EXIT.budget;
    if (controller.signal.aborted) return EXIT.interrupted;
    return unreachable ? EXIT.network : EXIT.failed;
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
  if (argv.json) process.stdout.write(`${jsonText({ type: "waiting", runId, questions })}\n`);
  for (const question of questions) {
    const at = `${question.program}:${question.line}:${question.column}`;
    if (question.name.startsWith(APPROVAL_PREFIX)) {
      const call = question.name.slice(APPROVAL_PREFIX.length);
      process.stderr.write(
        forStream(
          process.stderr,
          `Waiting for approval: ${question.prompt} (${at}). ` +
            `Approve with: prosec approve ${runId} ${call}, or deny with: prosec deny ${runId} ${call} --reason "..."; ` +
            `then continue with: prosec run ${again} --resume ${runId}\n`,
        ),
      );
      continue;
    }
    const name = quote(question.answer);
    // A program may be someone else's: its prompts reach a terminal without escape sequences.
    process.stderr.write(
      forStream(
        process.stderr,
        `Waiting for input "${question.name}" (${question.prompt}) at ${at}${question.deadline === undefined ? "" : ` until ${question.deadline}`}. ` +
          `Answer with: prosec answer ${runId} ${name}=..., then prosec run ${again} --resume ${runId}; ` +
          `or: prosec run ${again} --resume ${runId} --input ${name}=...\n`,
      ),
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
    return (JSON.parse(readRunFile(join(runDir, "run.json"))) as { sourceHash?: string }).sourceHash === sourceHash;
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

/**
 * `--resume ID` (with `--from LINE`, a fork): the store continues the run. A folder run goes on in
 * this process: the id of the run to run. A run the store continues elsewhere (a DBOS worker) has
 * ended: the exit code.
 */
async function continueStored(
  runId: string,
  argv: RunArguments,
  cwd: string,
  version: string | undefined,
): Promise<string | ExitCode> {
  const { openRunStore, reportingStore } = await import("../runs/open-run-store.js");
  const store = openRunStore(cwd);
  const options = {
    json: argv.json,
    ...(argv.file === undefined ? {} : { file: argv.file }),
    ...(version === undefined ? {} : { version }),
  };
  let continuation: Continuation | undefined;
  const code = await reportingStore(async () => {
    continuation =
      argv.from === undefined ? await store.resume(runId, options) : await store.fork(runId, argv.from, options);
    return EXIT.ok;
  });
  if (continuation === undefined) return code;
  if ("ended" in continuation) return continuation.ended;
  if (continuation.note !== undefined) process.stderr.write(`${continuation.note}\n`);
  return continuation.runHere;
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
