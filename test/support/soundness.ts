/**
 * The soundness property, as one harness for the regression tests and the generated programs: a
 * program that `check` passes must compile, its module must type-check in strict mode, and it must
 * run against the scripted model without an internal error (a ProseError the program raises, such
 * as its own `throw`, is fine; a TypeError or ReferenceError is a compiler bug). Parameters and
 * inputs asked mid-program are answered (`input N`, `answer for NAME`).
 *
 * Each case is a folder of `.prose` files whose first file is the program run. Modules are
 * type-checked all together in one ts-morph project (one per program would cost seconds each).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { typecheck } from "../../src/project/typecheck.js";
import { checkPrograms } from "../../src/cli/check-command.js";
import { importedFile, importInterface } from "../../src/project/imports.js";
import { compile, type ImportResolution } from "../../src/compile.js";
import type { Diagnostic } from "../../src/diagnostics/diagnostic.js";
import { deterministicModel } from "./deterministic-model.js";
import { startFakeAnthropic, type FakeServer, type Responder } from "./fake-anthropic.js";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));

/** Model calls one run may make before it is cancelled (its own `signal`, as Ctrl-C would). */
export const modelCallCap = 300;

/** The run in progress: its remaining model calls, and how to cancel it. */
interface Budget {
  remaining: number;
  readonly controller: AbortController;
}

export interface SoundnessCase {
  readonly name: string;
  /** File name → source; the first file is the program that runs. */
  readonly files: Readonly<Record<string, string>>;
}

/** Where the property broke for one case (absent when it held). */
export type Violation =
  | { readonly stage: "check"; readonly error: string }
  | { readonly stage: "compile"; readonly error: string }
  | { readonly stage: "typecheck"; readonly error: string }
  | { readonly stage: "run"; readonly error: string };

export interface CaseResult {
  readonly name: string;
  /** `check` found errors: the property says nothing about this case. */
  readonly rejected: boolean;
  readonly diagnostics: readonly Diagnostic[];
  readonly violation?: Violation;
  /**
   * How the run ended: outputs, the message of the ProseError the program raised, or stopped after
   * `modelCallCap` model calls (a loop without `max:` runs as long as the model says go on).
   */
  readonly outcome?:
    { readonly outputs: Record<string, unknown> } | { readonly raised: string } | { readonly stopped: true };
  /** The requests the model received (to assert on prompts). */
  readonly prompts: readonly string[];
}

interface Compiled {
  readonly result: CaseResult;
  readonly folder: string;
  /** Path → module code, as `build` would write it. */
  readonly modules: ReadonlyMap<string, string>;
}

/** Checks, compiles, type-checks (in one batch) and runs every case; returns one result per case. */
export async function checkSoundness(cases: readonly SoundnessCase[], root: string): Promise<CaseResult[]> {
  const compiled: Compiled[] = [];
  for (const soundnessCase of cases) compiled.push(await compileCase(soundnessCase, root));
  const modules = compiled.flatMap((entry) =>
    entry.result.rejected || entry.result.violation ? [] : [...entry.modules].map(([path, code]) => ({ path, code })),
  );
  const typeErrors = modules.length === 0 ? [] : await typecheck(modules);
  const model = deterministicModel((question) => question.length % 2 === 0);
  let budget: Budget = { remaining: modelCallCap, controller: new AbortController() };
  const respond: Responder = (request) => {
    if (--budget.remaining === 0) budget.controller.abort(new Error("model call cap"));
    return model(request);
  };
  const server = await startFakeAnthropic({ respond, keepBodies: true });
  try {
    const results: CaseResult[] = [];
    for (const entry of compiled) {
      if (entry.result.rejected || entry.result.violation) {
        results.push(entry.result);
        continue;
      }
      const errors = typeErrors.filter((error) => entry.modules.has(error.path));
      if (errors.length > 0) {
        results.push({
          ...entry.result,
          violation: {
            stage: "typecheck",
            error: errors.map((error) => `${error.path}:${error.line}: ${error.message}`).join("\n"),
          },
        });
        continue;
      }
      budget = { remaining: modelCallCap, controller: new AbortController() };
      results.push(await runCase(entry, server, budget.controller.signal));
    }
    return results;
  } finally {
    await server.close();
  }
}

async function compileCase(soundnessCase: SoundnessCase, root: string): Promise<Compiled> {
  const folder = join(root, soundnessCase.name);
  mkdirSync(folder, { recursive: true });
  const names = Object.keys(soundnessCase.files);
  for (const name of names) writeFileSync(join(folder, name), soundnessCase.files[name]!);
  const base = { name: soundnessCase.name, rejected: false, diagnostics: [] as Diagnostic[], prompts: [] as string[] };
  let diagnostics: Diagnostic[];
  try {
    diagnostics = checkPrograms([names[0]!], { cwd: folder }).flatMap((file) => file.diagnostics);
  } catch (error) {
    return { folder, modules: new Map(), result: { ...base, violation: { stage: "check", error: describe(error) } } };
  }
  if (diagnostics.some((diagnostic) => diagnostic.severity === "error"))
    return { folder, modules: new Map(), result: { ...base, rejected: true, diagnostics } };
  const modules = new Map<string, string>();
  const interfaces = new Map<string, ImportResolution>();
  for (const name of names) {
    const path = join(folder, name);
    try {
      const result = await compile(soundnessCase.files[name]!, name, {
        resolveImport: (use) => importInterface(importedFile(path, use), interfaces, folder),
      });
      if (result.code === undefined)
        throw new Error(
          `no code: ${result.diagnostics.map((diagnostic) => `${diagnostic.code} ${diagnostic.message}`).join("; ")}`,
        );
      modules.set(`${path}.ts`, result.code);
    } catch (error) {
      return {
        folder,
        modules,
        result: { ...base, diagnostics, violation: { stage: "compile", error: `${name}: ${describe(error)}` } },
      };
    }
  }
  return { folder, modules, result: { ...base, diagnostics } };
}

interface RunnableModule {
  run(inputs: Record<string, unknown>, options: object): Promise<Record<string, unknown>>;
  readonly default: { readonly inputs: readonly { readonly name: string; readonly midProgram?: boolean }[] };
}

async function runCase(entry: Compiled, server: FakeServer, signal: AbortSignal): Promise<CaseResult> {
  // The modules import the runtime's source; vite resolves `./helper.prose.js` to the `.ts` beside it.
  for (const [path, code] of entry.modules)
    writeFileSync(path, code.replace('from "prosec/runtime"', `from ${JSON.stringify(runtimeEntry)}`));
  const main = [...entry.modules.keys()][0]!;
  const before = server.requests.length;
  const prompts = () => server.requests.slice(before).map((request) => JSON.stringify(request.body?.messages ?? []));
  let module: RunnableModule;
  try {
    module = (await import(main)) as RunnableModule;
  } catch (error) {
    return { ...entry.result, violation: { stage: "run", error: `import: ${describe(error)}` } };
  }
  // Parameters are given; inputs asked mid-program are answered when asked (onInput), as a terminal would.
  const inputs = Object.fromEntries(
    module.default.inputs
      .filter((input) => input.midProgram !== true)
      .map((input, index) => [input.name, `input ${index + 1}`]),
  );
  try {
    const outputs = await module.run(inputs, {
      apiKey: "sk-ant-test",
      baseURL: server.url,
      maxRetries: 0,
      cwd: entry.folder,
      concurrency: 4,
      signal,
      onInput: (definition: { readonly name: string }) => `answer for ${definition.name}`,
    });
    return { ...entry.result, outcome: { outputs }, prompts: prompts() };
  } catch (error) {
    // Cancelled at the cap: the run ends with the reason it was cancelled with, as after Ctrl-C.
    if (signal.aborted) return { ...entry.result, outcome: { stopped: true }, prompts: prompts() };
    if (error instanceof Error && error.name === "ProseError")
      return { ...entry.result, outcome: { raised: error.message }, prompts: prompts() };
    return { ...entry.result, violation: { stage: "run", error: describe(error) }, prompts: prompts() };
  }
}

function describe(error: unknown): string {
  return error instanceof Error
    ? `${error.name}: ${error.message}\n${error.stack?.split("\n").slice(1, 6).join("\n") ?? ""}`
    : String(error);
}
