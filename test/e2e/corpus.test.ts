/**
 * End to end: every corpus program (the 50 that are not `roadmap/` sketches) is compiled with the
 * compiler API, imported, and run on the runtime against a scripted fake model that answers every
 * session, judgment, choice and extraction (test/support/corpus-model.ts, which says how; shared with
 * the cost benchmark), with `concurrency: 1`. Each run must FINISH with every declared output, or stop
 * with the program's OWN `throw` (the one its scenario names, raised on a `throw` line) — never with
 * any other error, and never by a deadline. Its calls must stay within the program's static bound.
 *
 * The number of model calls per program and kind is compared with the committed `model-calls.json`
 * (update it deliberately with `npx vitest run test/e2e/corpus.test.ts -u`).
 *
 * Subsumes the old test/runtime/corpus-run.test.ts (which accepted any located ProseError).
 */
import { afterAll, describe, expect, it } from "vitest";
import { ProseError } from "../../runtime/index.js";
import { corpusPrograms } from "../support/corpus.js";
import { corpusScenarios, scriptedModel } from "../support/corpus-model.js";
import { startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import type { RunEvent } from "../../runtime/types.js";
import {
  callKind,
  expectWithinBound,
  loadProgram,
  observedValues,
  TEST_API_KEY,
  temporaryFolder,
  type CallKind,
} from "./harness.js";

type Counts = Record<CallKind, number>;
const table = new Map<string, Counts>();

let server: FakeServer | undefined;
afterAll(async () => {
  await server?.close();
});

describe("corpus programs run end to end against a scripted model", () => {
  for (const program of corpusPrograms) {
    it(program.name, async () => {
      const scenario = corpusScenarios[program.name] ?? {};
      const model = scriptedModel(program.source, scenario);
      server = await startFakeAnthropic({ respond: model.respond });
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

        const counts: Counts = { session: 0, judgment: 0, choice: 0, extraction: 0 };
        for (const request of server.requests) counts[callKind(request)]++;
        table.set(program.name, counts);
      } finally {
        await server.close();
        server = undefined;
      }
    });
  }

  it("makes the committed number of model calls per program (model-calls.json)", async () => {
    expect([...table.keys()].sort(), "run the whole file: the table needs every program").toEqual(
      corpusPrograms.map((program) => program.name).sort(),
    );
    const totals: Counts = { session: 0, judgment: 0, choice: 0, extraction: 0 };
    for (const counts of table.values())
      for (const kind of Object.keys(totals) as CallKind[]) totals[kind] += counts[kind];
    // One program per line, so a change shows as a one-line diff.
    const row = (counts: object) => JSON.stringify(counts).replace(/,/g, ", ").replace(/:/g, ": ");
    const rows = [...table.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, counts]) => `    ${JSON.stringify(name)}: ${row(counts)}`);
    const all = totals.session + totals.judgment + totals.choice + totals.extraction;
    const document = `{\n  "totals": ${row({ ...totals, all })},\n  "programs": {\n${rows.join(",\n")}\n  }\n}\n`;
    expect(JSON.parse(document)).toBeTypeOf("object");
    await expect(document).toMatchFileSnapshot("./model-calls.json");
  });
});
