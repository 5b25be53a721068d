/**
 * The starter's golden test, recorded as `prosec test --save` would keep a real run, but with the
 * scripted model of `prosec/testing` answering: the run's journal, its manifest, and then a replay that
 * writes the expected outputs (and proves the test passes before init says it made it).
 */
import { join } from "node:path";
import {
  JournalStepStore,
  journalLine,
  STEP_SCHEME,
  makeDirectory,
  writeFileAtomically,
} from "../../runtime/stored-runs.js";
import { newRunId } from "../../runtime/index.js";
import { ScriptedDurability, ScriptedModel } from "../../runtime/testing/index.js";
import type { Journal, RecordedStep, StepAddress } from "../../runtime/types.js";
import { testGolden } from "../golden/run-golden.js";
import { loadProgram } from "../run/load-program.js";

/** The starter program, where init puts it, and the inputs its golden test was recorded with. */
export const STARTER = {
  example: "examples/app/src/workflows/research.prose",
  program: "src/research.prose",
  golden: "tests/research.golden",
  inputs: { topic: "tidal power", audience: "engineers new to the field" },
} as const;

/** What the scripted model answers, by binding: text a reader of the test recognises. */
const ANSWERS = {
  background: "Background: tides move water twice a day, predictably, decades ahead.",
  recent: "Recent: the first tidal stream arrays run commercially.",
  risks: "Risks: cost per megawatt hour, marine life, grid connection.",
  brief: "Tidal power for engineers: predictable, early, and costly for now.",
  headline: "Tidal power is predictable energy that is still too expensive",
};

/** Keeps every step with its anchor and request, as a run folder's journal does. */
class RecordingJournal implements Journal {
  readonly lines = new Map<string, string>();
  private readonly steps = new Map<string, RecordedStep>();

  get(key: string): Promise<RecordedStep | undefined> {
    return Promise.resolve(this.steps.get(key));
  }

  put(key: string, step: RecordedStep, address?: StepAddress): Promise<void> {
    this.steps.set(key, step);
    const record = address === undefined ? step : { ...step, anchor: address.anchor, request: address.request };
    this.lines.set(key, journalLine(key, record));
    return Promise.resolve();
  }
}

/** Records `program` (relative to `root`) run with `inputs` as the golden test in `golden`. */
export async function recordStarterGolden(
  root: string,
  starter: { readonly program: string; readonly golden: string; readonly inputs: { readonly [name: string]: string } },
): Promise<void> {
  const loaded = await loadProgram(join(root, starter.program), { cwd: root });
  if (loaded.module === undefined) throw new Error(`the starter program ${starter.program} does not compile`);
  const program = loaded.module.default;
  const model = new ScriptedModel({ answers: ANSWERS, strict: true });
  const journal = new RecordingJournal();
  const runId = newRunId(new Date());
  await loaded.module.run(starter.inputs, {
    client: model.options().client!,
    durability: new ScriptedDurability(model, new JournalStepStore(journal)),
    cwd: root,
    runId,
  });

  const dir = join(root, starter.golden);
  makeDirectory(dir);
  const manifest = {
    runId,
    program: program.name,
    source: starter.program,
    sourceHash: program.sourceHash,
    compilerVersion: program.compilerVersion,
    stepScheme: STEP_SCHEME,
    inputs: starter.inputs,
    startedAt: new Date().toISOString(),
  };
  writeFileAtomically(join(dir, "run.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileAtomically(join(dir, "journal.jsonl"), [...journal.lines.values()].join(""));
  const replayed = await testGolden(dir, { cwd: root, strict: false, update: true });
  if (!replayed.passed)
    throw new Error(
      `the starter's golden test does not replay: ${replayed.failures.map((failure) => failure.message).join("; ")}`,
    );
}
