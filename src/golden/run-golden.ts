/**
 * One golden test: compile the program as it is now, replay it against the recorded journal with no
 * model and no network, and compare its outputs with the expected ones. With `update` the outputs and
 * the journal are rewritten from the replay; with `writePending` the steps the recording lacks are
 * written to answers.json for a person to answer.
 */
import { withRunAbove } from "../runs/runs-above.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { type ProgramInfo, text, type Value } from "../../runtime/index.js";
import { displayPath } from "../project/files.js";
import { UsageError } from "../errors.js";
import { formatDiagnostic } from "../diagnostics/format.js";
import { loadProgram, type ProgramModule } from "../run/load-program.js";
import {
  expectedOutputs,
  findGoldens,
  GoldenError,
  isGolden,
  programOf,
  readGolden,
  type GoldenFolder,
} from "./golden-folder.js";
import { OfflineModel, ReplayDurability, type StepReport } from "./replay.js";
import { writeGolden, writePending } from "./write-golden.js";

export type FailureKind =
  "golden" | "program" | "missing-step" | "answer" | "network" | "error" | "output" | "no-expected";

export interface Failure {
  readonly kind: FailureKind;
  readonly message: string;
  readonly step?: StepReport;
  readonly output?: string;
  readonly expected?: Value;
  readonly actual?: Value;
}

export interface GoldenResult {
  /** The test's folder, relative to the working directory. */
  readonly name: string;
  /** The program replayed, relative to the working directory. */
  readonly program?: string;
  readonly passed: boolean;
  readonly failures: readonly Failure[];
  /** Steps replayed whose request is not what was recorded (the prompt or a value it shows changed). */
  readonly changed: readonly StepReport[];
  /** Recorded steps the program no longer reached. */
  readonly unusedSteps: number;
  /** Files written (`--update`, `--write-pending`, `--save`), relative to the working directory. */
  readonly written: readonly string[];
}

export interface GoldenOptions {
  readonly cwd: string;
  readonly strict: boolean;
  readonly update?: boolean;
  readonly writePending?: boolean;
}

export { findGoldens };

export async function testGolden(dir: string, options: GoldenOptions): Promise<GoldenResult> {
  return result(displayPath(dir, options.cwd), await replayGolden(dir, options), options, (replay, failures) => {
    const written: string[] = [];
    if (replay.outputs !== undefined && failures.length === 0) {
      if (options.update === true)
        written.push(...writeGolden(dir, { ...replay, replayed: replay.durability.replayed, outputs: replay.outputs }));
      else failures.push(...compareOutputs(replay.golden, replay.info, replay.outputs));
    }
    if (options.writePending === true && replay.durability.missing.length > 0)
      written.push(writePending(dir, replay.golden.answers, replay.durability.missing));
    return written;
  });
}

/**
 * `prosec test --save RUN_ID NAME`: replays the run in `.prose/runs/RUN_ID` against the program as it
 * is now and, when that finishes, saves it as `tests/NAME.golden` with the replay's outputs as expected.
 */
export async function saveGolden(runId: string, testName: string, options: GoldenOptions): Promise<GoldenResult> {
  if (!/^\w[\w.-]*$/.test(testName))
    throw new UsageError(`--save ${runId} ${testName}: a test name is letters, digits, ".", "-" and "_"`);
  const runDir = join(options.cwd, ".prose", "runs", runId);
  if (!isGolden(runDir))
    throw new UsageError(
      withRunAbove(`--save ${runId}: there is no such run in ${join(".prose", "runs")}`, options.cwd, runId),
    );
  const target = join(options.cwd, "tests", `${testName}.golden`);
  if (existsSync(target))
    throw new UsageError(
      `--save: ${displayPath(target, options.cwd)} already exists; replay it with prosec test, or rewrite it with --update`,
    );
  return result(displayPath(target, options.cwd), await replayGolden(runDir, options), options, (replay, failures) =>
    replay.outputs !== undefined && failures.length === 0
      ? writeGolden(target, { ...replay, replayed: replay.durability.replayed, outputs: replay.outputs })
      : [],
  );
}

/** The result of a test named `name`: `finish` may add failures and returns the files it wrote. */
function result(
  name: string,
  replay: Replayed | Unreplayable,
  options: GoldenOptions,
  finish: (replay: Replayed, failures: Failure[]) => string[],
): GoldenResult {
  if ("failure" in replay)
    return {
      name,
      ...(replay.program === undefined ? {} : { program: replay.program }),
      passed: false,
      failures: [replay.failure],
      changed: [],
      unusedSteps: 0,
      written: [],
    };
  const failures = replayFailures(replay);
  const written = finish(replay, failures);
  return {
    name,
    program: replay.program,
    passed: failures.length === 0,
    failures,
    changed: replay.durability.replayed.filter((step) => step.changed).map((step) => step.step),
    unusedSteps: replay.durability.unused,
    written: written.map((file) => displayPath(file, options.cwd)),
  };
}

interface Replayed {
  readonly golden: GoldenFolder;
  readonly program: string;
  readonly programPath: string;
  readonly info: ProgramInfo;
  readonly durability: ReplayDurability;
  readonly offline: OfflineModel;
  readonly outputs?: { readonly [name: string]: Value };
  readonly error?: unknown;
}

/** A golden folder that could not be replayed at all. */
interface Unreplayable {
  readonly failure: Failure;
  readonly program?: string;
}

async function replayGolden(dir: string, options: GoldenOptions): Promise<Replayed | Unreplayable> {
  let golden: GoldenFolder;
  let programPath: string;
  try {
    golden = readGolden(dir);
    programPath = programOf(golden, options.cwd);
  } catch (error) {
    if (error instanceof GoldenError) return { failure: { kind: "golden", message: error.message } };
    throw error;
  }
  const program = displayPath(programPath, options.cwd);
  const loaded = await loadProgram(programPath, { cwd: options.cwd, strict: options.strict });
  if (loaded.module === undefined) {
    const diagnostics = loaded.files.flatMap((file) =>
      file.diagnostics.map((diagnostic) => formatDiagnostic(file.file, file.source, diagnostic, { color: false })),
    );
    return { program, failure: { kind: "program", message: `the program has errors:\n${diagnostics.join("\n")}` } };
  }
  const module: ProgramModule = loaded.module;
  const durability = new ReplayDurability(golden.records, golden.answers);
  const offline = new OfflineModel();
  const base = { golden, program, programPath, info: module.default, durability, offline };
  try {
    const outputs = await module.run(golden.manifest.inputs, {
      client: offline.client,
      durability,
      cwd: options.cwd,
      runId: golden.manifest.runId,
      // Present so that an input not in run.json is a step, answered from the journal like the others.
      onInput: () => Promise.reject(new Error("a replay never asks for input")),
    });
    return { ...base, outputs };
  } catch (error) {
    return { ...base, error };
  }
}

function replayFailures(replay: Replayed): Failure[] {
  const { durability, offline } = replay;
  const failures: Failure[] = [];
  for (const url of offline.attempts)
    failures.push({
      kind: "network",
      message: `the replay tried to reach the model (${url}); a replay answers every step from the recording`,
    });
  for (const step of durability.missing)
    failures.push({ kind: "missing-step", step, message: `${where(step)}: ${what(step)} is not in the recording` });
  for (const { step, reason } of durability.badAnswers)
    failures.push({
      kind: "answer",
      step,
      message: `${where(step)}: the answer to ${what(step)} in answers.json cannot be used: ${reason}`,
    });
  if (replay.outputs === undefined && failures.length === 0)
    failures.push({
      kind: "error",
      message: `the replayed run failed: ${replay.error instanceof Error ? replay.error.message : String(replay.error)}`,
    });
  return failures;
}

function compareOutputs(
  golden: GoldenFolder,
  info: ProgramInfo,
  outputs: { readonly [name: string]: Value },
): Failure[] {
  const expected = expectedOutputs(golden, info.outputs);
  if (expected === undefined)
    return [
      {
        kind: "no-expected",
        message:
          "there are no expected outputs (no expected.json, and no binding files of the outputs): record them with --update",
      },
    ];
  const names = [...new Set([...Object.keys(expected.outputs), ...Object.keys(outputs)])];
  return names.flatMap((output): Failure[] => {
    // Own outputs only: `constructor` or `__proto__` must not read what every object inherits.
    const want = Object.hasOwn(expected.outputs, output) ? expected.outputs[output] : undefined;
    const got = Object.hasOwn(outputs, output) ? outputs[output] : undefined;
    const same =
      want !== undefined && got !== undefined && (expected.text ? text(got) === want : isDeepStrictEqual(got, want));
    if (same) return [];
    return [
      {
        kind: "output",
        output,
        ...(want === undefined ? {} : { expected: want }),
        ...(got === undefined ? {} : { actual: got }),
        message: `output "${output}" ${want === undefined ? "is not expected" : got === undefined ? "is missing" : "differs"}`,
      },
    ];
  });
}

export function where(step: StepReport): string {
  return `${step.source}:${step.at.line}:${step.at.column}`;
}

export function what(step: StepReport): string {
  return `the ${step.kind === "choose" ? "choice" : step.kind === "judge" ? "judgment" : step.kind === "extract" ? "extraction" : step.kind}${step.binding === undefined ? "" : ` ${step.binding}`}`;
}
