/**
 * A called program's mid-program input on DBOS: it waits in the database under the call's step key,
 * `prosec status` names the called program's file and the name that answers each input, and
 * `prosec answer` takes a shared name only when one waiting input has it (DIALECT.md, `input`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  folder,
  prosec,
  reportModel,
  result,
  startWorker,
  stopChildren,
  submit,
  waitFor,
} from "../support/dbos.js";
import { lastUserText } from "../support/fake-anthropic.js";
import { freshDatabase } from "../support/postgres.js";

afterEach(stopChildren);

const CALLER = `use "./imp/gate.prose" as gate

input topic: "What to write about"
session "Start on {topic}"
parallel:
  a = gate(topic: "tides")
  b = gate(topic: "moons")
output report = session "{a.result} / {b.result}"
  context: []
`;

const GATE = `input topic: "Topic"
session "Prepare {topic}"
input confirm: "Type YES to go on"
output result = session "Go {topic} {confirm}"
  context: []
`;

interface Waiting {
  readonly name: string;
  readonly program?: string;
  readonly line: number;
  readonly key: string;
  readonly answer: string;
}

describe("a called program's input on DBOS", () => {
  it(
    "names the called program's file and step key; a shared name is refused, each key answers its own call",
    {
      timeout: 120_000,
    },
    async () => {
      const server = await fakeModel({ respond: reportModel });
      const database = await freshDatabase("called_inputs");
      const cwd = folder(CALLER);
      mkdirSync(join(cwd, "imp"));
      writeFileSync(join(cwd, "imp", "gate.prose"), GATE);
      const env = environment(database, server);
      await startWorker("w1", cwd, env);
      await submit(cwd, env, "tea", "run-gates");
      let waiting: Waiting[] = [];
      await waitFor(async () => {
        const status = JSON.parse((await prosec(["status", "run-gates", "--json"], cwd, env)).stdout) as {
          waitingFor: Waiting[];
        };
        waiting = status.waitingFor;
        return waiting.length === 2;
      }, "both calls waiting");
      expect(waiting.map((question) => [question.name, question.program, question.line])).toEqual([
        ["confirm", "imp/gate.prose", 3],
        ["confirm", "imp/gate.prose", 3],
      ]);
      const keys = waiting.map((question) => question.key).sort();
      expect(keys).toEqual([
        expect.stringMatching(/use:gate@6:7#0\/input@3:1#0$/),
        expect.stringMatching(/use:gate@7:7#0\/input@3:1#0$/),
      ]);
      // Two calls share `gate.confirm`: the name each question answers to is its key.
      expect(waiting.map((question) => question.answer).sort()).toEqual(keys);
      const shown = await prosec(["status", "run-gates"], cwd, env);
      expect(shown.stdout).toContain(
        `waiting  for input "confirm" (Type YES to go on) at imp/gate.prose:3:1: prosec answer run-gates ${keys[0]}=...`,
      );

      const bare = await prosec(["answer", "run-gates", "confirm=YES"], cwd, env);
      expect([bare.code, bare.stderr]).toEqual([
        EXIT.usage,
        expect.stringContaining(`"confirm" names 2 inputs the run waits for; name the one you answer: `),
      ]);
      const named = await prosec(["answer", "run-gates", "gate.confirm=YES"], cwd, env);
      expect([named.code, named.stderr]).toEqual([
        EXIT.usage,
        expect.stringContaining(`"gate.confirm" names 2 inputs`),
      ]);
      const tides = keys.find((key) => key.includes("@6:7"))!;
      const moons = keys.find((key) => key.includes("@7:7"))!;
      const answered = await prosec(["answer", "run-gates", `${tides}=YES-1`, `${moons}=YES-2`], cwd, env);
      expect([answered.code, answered.stderr]).toEqual([0, ""]);
      const outputs = (await result(cwd, env, "run-gates")) as { report: string };
      expect(outputs.report).toMatch(/re: .*Go tides YES-1 \/ .*Go moons YES-2$/);
      // Each call asked its session once, with its own answer.
      const asked = server.requests.map((request) => lastUserText(request)).filter((text) => !text.includes(" / "));
      expect(asked.filter((text) => text.includes("Go tides"))).toEqual([expect.stringContaining("Go tides YES-1")]);
      expect(asked.filter((text) => text.includes("Go moons"))).toEqual([expect.stringContaining("Go moons YES-2")]);
    },
  );
});
