/**
 * Shared by the end-to-end tests: compiles `.prose` source with the compiler API, loads the generated
 * module (its `prosec/runtime` import pointed at the runtime's source) and classifies the requests the
 * fake Messages API receives.
 *
 * Only the public contract is used: `compile()`, the module's `run(inputs, options)` and its default
 * export (the program metadata: inputs and outputs).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { evaluate, inputValues, totalCalls, type ProgramCost, type SymbolValues } from "../../runtime/cost/bound.js";
import type { RunEvent } from "../../runtime/types.js";
import { compile, type ImportResolution } from "../../src/compile.js";
import { lastUserText, type FakeRequest } from "../support/fake-anthropic.js";
import { callKind, firstMessageText, reasksIn, TASK_HEADING, type CallKind } from "../support/requests.js";
import { temporaryFolder } from "../support/temp.js";

export const TEST_API_KEY = "sk-ant-test-e2e-0123456789abcdef";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));

export { temporaryFolder };

/** Where compiled programs are written: a folder of the current test file's (workers may share this module). */
let moduleFolder: string | undefined;

export interface ProgramMetadata {
  readonly name: string;
  readonly inputs: readonly { readonly name: string; readonly prompt: string }[];
  readonly outputs: readonly string[];
  readonly cost: ProgramCost;
}

export interface LoadedProgram {
  readonly run: (inputs: Record<string, unknown>, options: object) => Promise<Record<string, unknown>>;
  readonly metadata: ProgramMetadata;
}

let loaded = 0;

/** Compiles `source` (reported as `file`), asserts it has no errors, writes and imports the module. */
export async function loadProgram(
  source: string,
  file: string,
  resolveImport?: (path: string) => ImportResolution,
): Promise<LoadedProgram> {
  const compiled = await compile(source, file, { resolveImport });
  expect(compiled.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  expect(compiled.code).toBeDefined();
  if (moduleFolder === undefined || !existsSync(moduleFolder)) moduleFolder = temporaryFolder("prosec-e2e-modules-");
  const folder = join(moduleFolder, String(++loaded));
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${file.replace(/[^A-Za-z0-9.-]/g, "_")}.ts`);
  writeFileSync(path, compiled.code!.replace(/from "prosec\/runtime"/g, `from ${JSON.stringify(runtimeEntry)}`));
  const module = (await import(path)) as { run: LoadedProgram["run"]; default: ProgramMetadata };
  return { run: module.run, metadata: module.default };
}

export {
  callKind,
  choiceCriteria,
  choiceEnum,
  choiceOptions,
  fieldsAsked,
  firstUserText,
  judgmentCondition,
  type CallKind,
} from "../support/requests.js";

/**
 * The values a run gave the bound's symbols: inputs from the inputs, a list's size and a loop's count
 * from the run's events at the symbol's sites (the largest seen). A symbol whose site the run never
 * reached is 0: nothing it multiplies ran.
 */
export function observedValues(
  cost: ProgramCost,
  events: readonly RunEvent[],
  inputs: Readonly<Record<string, unknown>>,
): SymbolValues {
  const fromInputs = inputValues(cost, inputs as Record<string, string>);
  const values = new Map<string, number>();
  for (const symbol of cost.symbols) {
    let largest = 0;
    for (const event of events) {
      if (
        event.source !== undefined ||
        event.at === undefined ||
        !symbol.sites.some((site) => site.line === event.at!.line && site.column === event.at!.column)
      )
        continue;
      if (symbol.kind === "items" && event.type === "list") largest = Math.max(largest, event.items);
      if (symbol.kind === "count" && event.type === "loop-iteration") largest = Math.max(largest, event.iteration + 1);
    }
    values.set(symbol.name, fromInputs(symbol.name) ?? largest);
  }
  return (name) => values.get(name);
}

export interface BoundCheck {
  readonly actual: number;
  readonly bound: number;
}

/**
 * Asserts that the calls a run made are within its program's bound, kind by kind (a re-ask of a
 * judgment, choice or extraction counts with the retries), and in all; returns the totals.
 */
export function expectWithinBound(
  cost: ProgramCost,
  requests: readonly FakeRequest[],
  values: SymbolValues,
): BoundCheck {
  const actual: Record<CallKind, number> = { session: 0, judgment: 0, choice: 0, extraction: 0 };
  let reasks = 0;
  for (const request of requests) {
    if (reasksIn(request) > 0) reasks++;
    else actual[callKind(request)]++;
  }
  const bound = (count: Parameters<typeof evaluate>[0]): number => evaluate(count, values) ?? Infinity;
  expect(actual.session + reasks, "sessions, their retries and the questions' re-asks").toBeLessThanOrEqual(
    bound({ sum: [cost.calls.session, cost.calls.retry] }),
  );
  expect(actual.judgment, "judgments").toBeLessThanOrEqual(bound(cost.calls.judgment));
  expect(actual.choice, "choices").toBeLessThanOrEqual(bound(cost.calls.choice));
  expect(actual.extraction, "extractions").toBeLessThanOrEqual(bound(cost.calls.extraction));
  const total = bound(totalCalls(cost));
  expect(requests.length, "all model calls").toBeLessThanOrEqual(total);
  return { actual: requests.length, bound: total };
}

/** The trail a session or judgment was given ("" for none): its first blocks, before the task or question. */
export function trailText(request: FakeRequest): string {
  const text = callKind(request) === "session" ? firstMessageText(request) : lastUserText(request);
  if (!text.startsWith(TRAIL_HEADING)) return "";
  const end =
    callKind(request) === "session"
      ? text.indexOf(`\n\n${TASK_HEADING}\n\n`)
      : text.search(/\n\n(## Context\n|Condition: |Choose the option)/);
  return end < 0 ? text : text.slice(0, end);
}

const TRAIL_HEADING = "## Earlier results (oldest first)";
