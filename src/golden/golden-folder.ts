/**
 * A golden test is a folder holding `run.json` and `journal.jsonl`: a run folder as it is
 * (`.prose/runs/<id>/`), or a copy saved by `prosec test --save` (`tests/<name>.golden/`) that also
 * holds:
 *
 *   expected.json   `{ "program": "<path from this folder>", "outputs": { ... } }`
 *   answers.json    steps the program asks for that the recording lacks, to be answered by hand
 *                   (`--write-pending` writes them with `"answer": null`)
 *
 * A run folder without `expected.json` is checked against its own `bindings/<output>.md` files, as
 * text, and its program is found by the source path in `run.json` from the working directory.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import {
  JOURNAL_FILE,
  parseJournal,
  type JournalRecord,
  type RunManifest,
  safeName,
} from "../../runtime/stored-runs.js";
import type { StepKind, Value } from "../../runtime/index.js";
import { UsageError } from "../errors.js";
import { jsonProblem } from "../../runtime/host.js";

export const EXPECTED_FILE = "expected.json";
export const ANSWERS_FILE = "answers.json";
export const MANIFEST_FILE = "run.json";

export interface Expected {
  /** The program, relative to the golden folder. */
  readonly program?: string;
  readonly outputs: { readonly [name: string]: Value };
}

/** A step to answer by hand (answers.json). */
export interface PendingAnswer {
  /** Where and what, for people: `src/x.prose:12:3 session (draft)`. */
  readonly step: string;
  readonly kind: StepKind;
  readonly key: string;
  readonly anchor?: string;
  /** What the step asks: a session's task, a judgment's condition ... */
  readonly asked: string;
  /** A choice's option labels: answer with one of them. */
  readonly options?: readonly string[];
  /** `null` until answered: text for a session, true/false for a judgment, a label for a choice. */
  readonly answer: Value;
}

export interface GoldenFolder {
  readonly dir: string;
  readonly manifest: RunManifest;
  readonly records: readonly JournalRecord[];
  readonly expected: Expected | undefined;
  readonly answers: readonly PendingAnswer[];
}

/** Why a folder cannot be tested as it is. */
export class GoldenError extends Error {}

/** The golden folders under `paths` (a path may be one itself), sorted; a path holding none is a usage error. */
export function findGoldens(paths: readonly string[], cwd: string): string[] {
  const found = new Set<string>();
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    if (!existsSync(absolute) || !statSync(absolute).isDirectory()) throw new UsageError(noSuchFolder(path, cwd));
    const goldens = goldensUnder(absolute);
    if (goldens.length === 0)
      throw new UsageError(
        `${path}: no golden tests here (a golden test is a folder holding ${MANIFEST_FILE} and ${JOURNAL_FILE})`,
      );
    goldens.forEach((golden) => found.add(golden));
  }
  return [...found];
}

/**
 * A relative path missing here that a folder above holds (`tests` from a project's `src/`): the tests
 * name programs inside the working directory, so they run from that folder.
 */
function noSuchFolder(path: string, cwd: string): string {
  if (isAbsolute(path)) return `${path}: no such folder`;
  for (let folder = dirname(cwd); ; folder = dirname(folder)) {
    const there = join(folder, path);
    if (existsSync(there) && statSync(there).isDirectory())
      return `${path}: no such folder here; ${there} is one: run prosec test from ${folder}`;
    if (dirname(folder) === folder) return `${path}: no such folder`;
  }
}

export function isGolden(dir: string): boolean {
  return existsSync(join(dir, MANIFEST_FILE)) && existsSync(join(dir, JOURNAL_FILE));
}

function goldensUnder(dir: string): string[] {
  if (isGolden(dir)) return [dir];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return entries.flatMap((entry) =>
    entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules"
      ? goldensUnder(join(dir, entry.name))
      : [],
  );
}

export function readGolden(dir: string): GoldenFolder {
  const manifest = readJson<RunManifest>(join(dir, MANIFEST_FILE));
  if (typeof manifest?.source !== "string" || typeof manifest.inputs !== "object")
    throw new GoldenError(`${MANIFEST_FILE} is not a run manifest written by prosec`);
  const journalPath = join(dir, JOURNAL_FILE);
  let records: JournalRecord[];
  try {
    records = parseJournal(readFileSync(journalPath, "utf8"), JOURNAL_FILE).records;
  } catch (error) {
    throw new GoldenError(error instanceof Error ? error.message : String(error));
  }
  const expected = existsSync(join(dir, EXPECTED_FILE)) ? readJson<Expected>(join(dir, EXPECTED_FILE)) : undefined;
  if (
    expected !== undefined &&
    (typeof expected !== "object" || expected === null || typeof expected.outputs !== "object")
  )
    throw new GoldenError(`${EXPECTED_FILE} has no "outputs" object`);
  const answers = existsSync(join(dir, ANSWERS_FILE))
    ? readJson<{ answers?: PendingAnswer[] }>(join(dir, ANSWERS_FILE)).answers
    : [];
  if (!Array.isArray(answers)) throw new GoldenError(`${ANSWERS_FILE} has no "answers" list`);
  return { dir, manifest, records, expected, answers };
}

/**
 * The program a golden test replays: expected.json's, else run.json's source from the working
 * directory. A golden test is committed, so it may come from anyone: it names a `.prose` file inside
 * the working directory, links resolved, or it would make `prosec test` compile (and print in a code
 * frame) any file CI can read, such as `/proc/self/environ`.
 */
export function programOf(golden: GoldenFolder, cwd: string): string {
  const path =
    golden.expected?.program !== undefined
      ? resolve(golden.dir, golden.expected.program)
      : resolve(cwd, golden.manifest.source);
  const named =
    golden.expected?.program !== undefined
      ? `${EXPECTED_FILE} names ${golden.expected.program}`
      : `${MANIFEST_FILE} names ${golden.manifest.source}`;
  if (!existsSync(path)) {
    throw new GoldenError(
      `cannot find the program to replay: ${named}, which does not exist (from ${golden.expected?.program !== undefined ? "the test's folder" : "the working directory"}). Set "program" in ${EXPECTED_FILE}, relative to the test's folder.`,
    );
  }
  const real = realpathSync(path);
  const inside = relative(realpathSync(cwd), real);
  if (!real.endsWith(".prose") || inside.startsWith("..") || isAbsolute(inside))
    throw new GoldenError(
      `will not replay ${named}: a golden test replays a .prose file inside the working directory (run prosec test from the project's folder)`,
    );
  return path;
}

/**
 * The outputs a golden test expects: expected.json's, else the run folder's binding files, which hold
 * values as text (`text` says so). Undefined when there are none.
 */
export function expectedOutputs(
  golden: GoldenFolder,
  names: readonly string[],
): { readonly outputs: { readonly [name: string]: Value }; readonly text: boolean } | undefined {
  if (golden.expected !== undefined) return { outputs: golden.expected.outputs, text: false };
  const outputs: Array<[string, Value]> = [];
  for (const name of names) {
    const path = join(golden.dir, "bindings", `${safeName(name)}.md`);
    if (!existsSync(path)) return undefined;
    const content = readFileSync(path, "utf8");
    const start = content.indexOf("\n---\n\n");
    if (start < 0) throw new GoldenError(`bindings/${safeName(name)}.md is not a binding file written by prosec`);
    outputs.push([name, content.slice(start + "\n---\n\n".length).replace(/\n$/, "")]);
  }
  // Own properties whatever the names: `outputs["__proto__"] = ...` would set the prototype instead.
  return { outputs: Object.fromEntries(outputs), text: true };
}

function readJson<T>(path: string): T {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch (error) {
    throw new GoldenError(`${path.split(/[\\/]/).pop()} cannot be read: ${jsonProblem(error)}`);
  }
}
