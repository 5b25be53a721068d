/**
 * `prosec eval`: compile the eval program once (its asserts scored), run it per case under one budget,
 * and report; the exit code says whether the eval may gate a deploy (docs/evals.md).
 */
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { newRunId, type RunOptions } from "../../runtime/index.js";
import { resolveModel } from "../../runtime/cost.js";
import { ScriptedModel, type Script } from "../../runtime/testing/index.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { compare, readBaseline, saveBaseline } from "../eval/baseline.js";
import { readCases, type EvalCase } from "../eval/cases.js";
import { caseBound, evalRefusal } from "../eval/eval-bound.js";
import {
  EVAL_FORMAT,
  entryKey,
  evalFolder,
  readManifest,
  readResults,
  runFolder,
  writeManifest,
  type EvalManifest,
  type EvalRunEntry,
} from "../eval/eval-folder.js";
import { htmlReport } from "../eval/html-report.js";
import { reportOf } from "../eval/report.js";
import { runEval, spentByRun } from "../eval/run-eval.js";
import { summarize } from "../eval/summary.js";
import { caseLine, terminalReport } from "../eval/terminal-report.js";
import { writeFileAtomically } from "../../runtime/stored-runs.js";
import { modelAccessConfigured, noCredentialsMessage } from "../run/credentials.js";
import { missingParameters } from "../run/inputs.js";
import { loadChecked } from "../run/load-checked.js";
import type { ProgramModule } from "../run/load-program.js";
import { pricesFromEnvironment } from "./cost-report.js";
import type { FormatArguments } from "./output-format.js";
import { jsonText } from "../json-text.js";

export interface EvalArguments extends FormatArguments {
  readonly file?: string;
  readonly cases?: string;
  readonly repeat: number;
  readonly concurrency: number;
  readonly budget?: number;
  readonly yes: boolean;
  readonly resume?: string;
  readonly baseline?: string;
  readonly "save-baseline"?: string;
  readonly min?: number;
  readonly html?: string;
  readonly scripted?: string;
  readonly strict: boolean;
}

const EVAL_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

export async function evalProgram(argv: EvalArguments): Promise<ExitCode> {
  const cwd = process.cwd();
  const started = Date.now();
  checkArguments(argv);
  const baseline = argv.baseline === undefined ? undefined : { file: argv.baseline, data: readBaseline(argv.baseline) };
  const script = argv.scripted === undefined ? undefined : readScript(argv.scripted);

  const earlier = argv.resume === undefined ? undefined : readEarlier(cwd, argv.resume);
  const file = earlier?.program ?? argv.file!;
  if (earlier !== undefined && argv.file !== undefined && relative(cwd, argv.file) !== relative(cwd, earlier.program))
    throw new UsageError(`--resume ${earlier.evalId}: that eval runs ${earlier.program}, not ${argv.file}`);
  // Compiled once for every case: its own asserts scored, those of the programs it calls raising.
  const loaded = await loadChecked(file, { cwd, strict: argv.strict, scoreAsserts: true });
  if (loaded === undefined) return EXIT.failed;
  const module = loaded.module;
  const program = module.default;
  if (earlier !== undefined && earlier.sourceHash !== program.sourceHash) {
    process.stderr.write(
      `prosec: ${file} changed since eval ${earlier.evalId} started: its finished cases were scored by the program as it was. Start a new eval.\n`,
    );
    return EXIT.failed;
  }
  if (script === undefined && !(await modelAccessConfigured())) throw new UsageError(noCredentialsMessage);

  const manifest = earlier ?? newManifest(cwd, file, argv, readCases(argv.cases!), program);
  const evalDir = evalFolder(cwd, manifest.evalId);
  const prices = pricesFromEnvironment();
  const modelId = (name: string): string => resolveModel(name, undefined);
  if (argv.budget !== undefined && !argv.yes) {
    const finished = earlier === undefined ? new Map() : readResults(evalDir);
    const pending = manifest.runs.filter((entry) => !finished.has(entryKey(entry)));
    const spent = manifest.runs.reduce((sum, entry) => sum + spentByRun(runFolder(cwd, entry.runId)).dollars, 0);
    const refusal = evalRefusal(program.cost, pending, spent, argv.budget, prices, modelId);
    if (refusal !== undefined) {
      process.stderr.write(`prosec: ${refusal} Raise --budget, or start anyway with --yes.\n`);
      return EXIT.budget;
    }
  }
  if (earlier === undefined) writeManifest(evalDir, manifest);

  const scripted = script === undefined ? undefined : new ScriptedModel(script);
  const runOptions = (): RunOptions => (scripted === undefined ? {} : scripted.options());
  const controller = new AbortController();
  let interrupts = 0;
  const interrupt = (): void => {
    if (++interrupts > 1) process.exit(EXIT.interrupted);
    controller.abort();
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);
  process.stderr.write(
    `eval ${manifest.evalId} · ${manifest.runs.length} ${manifest.runs.length === 1 ? "case" : "cases"} · ${argv.concurrency} at a time\n`,
  );
  let outcome;
  try {
    outcome = await runEval({
      module,
      manifest,
      evalDir,
      cwd,
      concurrency: argv.concurrency,
      ...(argv.budget === undefined ? {} : { budget: argv.budget }),
      runOptions,
      caseBound: (entry) => caseBound(program.cost, entry.inputs, prices, modelId).dollars,
      signal: controller.signal,
      onCase: (result) => process.stderr.write(`${caseLine(result, manifest.repeat)}\n`),
    });
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }

  const summary = summarize(
    { evalId: manifest.evalId, program: manifest.program, repeat: manifest.repeat, planned: manifest.runs.length },
    outcome.results,
  );
  const comparison =
    baseline === undefined && argv.min === undefined ? undefined : compare(summary, baseline, argv.min);
  const report = reportOf(summary, Date.now() - started, comparison, outcome.stopped);
  process.stdout.write(argv.json ? `${jsonText(report, 2)}\n` : terminalReport(report));
  if (argv.html !== undefined) writeFileAtomically(argv.html, htmlReport(report));
  if (argv["save-baseline"] !== undefined && outcome.stopped === undefined)
    saveBaseline(argv["save-baseline"], summary);
  else if (argv["save-baseline"] !== undefined)
    process.stderr.write(
      `prosec: no baseline written: the eval is unfinished (prosec eval --resume ${manifest.evalId})\n`,
    );

  if (outcome.stopped?.why === "interrupted") return EXIT.interrupted;
  if (outcome.stopped?.why === "budget") return EXIT.budget;
  if (summary.finished > 0 && summary.scored === 0) return EXIT.evalAllErrors;
  return comparison?.failed === true ? EXIT.failed : EXIT.ok;
}

function checkArguments(argv: EvalArguments): void {
  if (argv.resume === undefined) {
    if (argv.file === undefined)
      throw new UsageError("name the eval program: prosec eval EVAL.prose --cases cases.jsonl");
    if (argv.cases === undefined)
      throw new UsageError("--cases is needed: a JSON Lines file or a folder of .json cases");
  } else {
    if (!EVAL_ID.test(argv.resume))
      throw new UsageError(`--resume ${argv.resume}: an eval id looks like 20260115-143052-a7b3c9`);
    if (argv.cases !== undefined)
      throw new UsageError("--resume continues an eval with its own cases: leave out --cases");
  }
  if (!Number.isInteger(argv.repeat) || argv.repeat < 1)
    throw new UsageError("--repeat takes a whole number of at least 1");
  if (!Number.isInteger(argv.concurrency) || argv.concurrency < 1)
    throw new UsageError("--concurrency takes a whole number of at least 1");
  if (argv.budget !== undefined && !(argv.budget > 0 && Number.isFinite(argv.budget)))
    throw new UsageError("--budget takes a positive number of dollars, e.g. --budget 2.50");
  if (argv.min !== undefined && !(argv.min >= 0 && argv.min <= 1))
    throw new UsageError("--min takes a pass rate from 0 to 1, e.g. --min 0.8");
}

function readEarlier(cwd: string, evalId: string): EvalManifest {
  const dir = evalFolder(cwd, evalId);
  if (!existsSync(dir)) throw new UsageError(`--resume ${evalId}: there is no such eval in .prose/evals`);
  const manifest = readManifest(dir);
  if (typeof manifest === "string") throw new UsageError(`--resume ${evalId}: ${manifest}`);
  return manifest;
}

/** A new eval: its id, and a run id for each case and repeat, fixed before any runs. */
function newManifest(
  cwd: string,
  file: string,
  argv: EvalArguments,
  cases: readonly EvalCase[],
  program: ProgramModule["default"],
): EvalManifest {
  const known = new Set(program.inputs.map((input) => input.name));
  for (const { name, inputs } of cases) {
    const unknown = Object.keys(inputs).filter((input) => !known.has(input));
    if (unknown.length > 0)
      throw new UsageError(
        `case "${name}": ${program.name}.prose has no input ${unknown.map((input) => `"${input}"`).join(", ")} (its inputs: ${[...known].join(", ") || "none"})`,
      );
    const missing = missingParameters(program, inputs);
    if (missing.length > 0)
      throw new UsageError(`case "${name}": it gives no ${missing.map((input) => `"${input.name}"`).join(", ")}`);
  }
  const taken = new Set<string>();
  const freshId = (): string => {
    for (;;) {
      const id = newRunId(new Date());
      if (!taken.has(id) && !existsSync(runFolder(cwd, id))) {
        taken.add(id);
        return id;
      }
    }
  };
  let evalId = newRunId(new Date());
  while (existsSync(evalFolder(cwd, evalId))) evalId = newRunId(new Date());
  const runs: EvalRunEntry[] = [];
  for (const { name, inputs } of cases)
    for (let repeat = 1; repeat <= argv.repeat; repeat++) runs.push({ case: name, repeat, runId: freshId(), inputs });
  return {
    format: EVAL_FORMAT,
    evalId,
    program: relative(cwd, file).split("\\").join("/"),
    sourceHash: program.sourceHash,
    cases: argv.cases!,
    repeat: argv.repeat,
    startedAt: new Date().toISOString(),
    runs,
  };
}

function readScript(file: string): Script {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(
      `--scripted ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "there is no such file" : "it is not JSON"}`,
    );
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new UsageError(`--scripted ${file}: a script is {"answers": {...}, "defaults": {...}, "strict": false}`);
  const { answers, defaults, strict, ...rest } = json as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    throw new UsageError(
      `--scripted ${file}: a script has "answers", "defaults" and "strict", not "${Object.keys(rest)[0]}"`,
    );
  return {
    ...(answers === undefined ? {} : { answers }),
    ...(defaults === undefined ? {} : { defaults }),
    ...(strict === true ? { strict } : {}),
  } as Script;
}
