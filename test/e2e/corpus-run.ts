/**
 * One corpus program run end to end against the scripted model (test/support/corpus-model.ts), as
 * corpus.test.ts and corpus-misbehaving.slow.test.ts run them: the run must FINISH with every declared
 * output, or stop with the program's OWN `throw` (the one its scenario names, raised on a `throw`
 * line), never with any other error, and its calls must stay within the program's static bound.
 */
import { expect } from "vitest";
import { ProseError } from "../../runtime/index.js";
import type { RunEvent } from "../../runtime/types.js";
import type { CorpusProgram } from "../support/corpus.js";
import { corpusScenarios, scriptedModel } from "../support/corpus-model.js";
import { startFakeAnthropic, type FakeRequest, type Responder } from "../support/fake-anthropic.js";
import { expectWithinBound, loadProgram, observedValues, TEST_API_KEY, temporaryFolder } from "./harness.js";

/** Wraps the scripted model's answers (a model that misbehaves on cue). */
export type ModelWrapper = (respond: Responder) => Responder;

/** Runs the program, asserts how it ends and that it kept its bound; returns the requests it made. */
export async function runCorpusProgram(
  program: CorpusProgram,
  wrap: ModelWrapper = (respond) => respond,
): Promise<readonly FakeRequest[]> {
  const scenario = corpusScenarios[program.name] ?? {};
  const model = scriptedModel(program.source, scenario);
  const server = await startFakeAnthropic({ respond: wrap(model.respond) });
  try {
    const loaded = await loadProgram(program.source, program.name);
    const given = scenario.inputs ?? {};
    // Every parameter gets a scripted value, and so does every input asked for at run time.
    const parameters = loaded.metadata.inputs.map((input) => input.name);
    expect(parameters.filter((name) => given[name] === undefined)).toEqual([]);
    const inputs = Object.fromEntries(parameters.map((name) => [name, given[name]!]));
    const asked: string[] = [];
    const onInput = (definition: { name: string }) => {
      asked.push(definition.name);
      const value = given[definition.name];
      if (value === undefined) throw new Error(`no scripted answer for input ${definition.name}`);
      return value;
    };
    const cwd = temporaryFolder("prosec-e2e-cwd-");
    const events: RunEvent[] = [];
    const options = {
      apiKey: TEST_API_KEY,
      baseURL: server.url,
      cwd,
      homeDir: temporaryFolder("prosec-e2e-home-"),
      concurrency: 1,
      maxRetries: 0,
      onInput,
      onEvent: (event: RunEvent) => events.push(event),
    };

    let outputs: Record<string, unknown> | undefined;
    let failure: unknown;
    try {
      outputs = await loaded.run(inputs, options);
    } catch (error) {
      failure = error;
    }

    if (scenario.throws === undefined) {
      if (failure !== undefined) throw failure;
      expect(Object.keys(outputs!).sort()).toEqual([...loaded.metadata.outputs].sort());
      for (const name of loaded.metadata.outputs) {
        expect(outputs![name], `output ${name}`).toBeDefined();
        if (scenario.unboundOutputs?.includes(name)) expect(outputs![name], `output ${name}`).toBeNull();
        else expect(outputs![name], `output ${name}`).not.toBeNull();
      }
    } else {
      expect(failure, "the run should end with the program's own throw").toBeInstanceOf(ProseError);
      const error = failure as ProseError;
      expect(error.reason).toBe(scenario.throws);
      expect(error.file).toBe(program.name);
      expect(error.cause).toBeUndefined();
      const line = program.source.split("\n")[error.line! - 1] ?? "";
      expect(line.trim().startsWith("throw"), `line ${error.line} is a throw: ${line}`).toBe(true);
      expect(line).toContain(JSON.stringify(scenario.throws));
    }
    expect(model.unlocated, "every judged condition is found in the source").toEqual([]);
    expect(model.stuck, "every loop's judge saw progress within its asks").toEqual([]);
    expect(asked.every((name) => given[name] !== undefined)).toBe(true);

    // The static bound holds: no more calls of any kind than the bound evaluated with this run's values.
    expectWithinBound(loaded.metadata.cost, server.requests, observedValues(loaded.metadata.cost, events, given));
    return [...server.requests];
  } finally {
    await server.close();
  }
}
